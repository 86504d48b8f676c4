"""Debian's Chromium driven by Playwright, for the graph renderer's tests and bench/graph.py
(never `playwright install`: scripts/test installs the browser)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.analysis.large_workflow import large_workflow

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def engine_ceiling() -> str:
    """A clean generated workflow of 500 nodes, the most the engine loads (50 blocks of ten and
    the input node, less the last block's last node): 649 edges, 50 parallel groups."""
    text = large_workflow(50)
    last = ("    - id: b49-pass\n      type: transform\n      transform: "
            "'[run.outputs[\"b49-note\"], run.outputs[\"b49-escalate\"] ?? null]'\n")
    edge = "    - { from: b49-note, to: b49-pass }\n"
    assert last in text and edge in text
    return text.replace(last, "").replace(edge, "")


def missing() -> str | None:
    """Why the browser cannot run here (None: it can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Python Playwright is not installed (it is in the test extras)"
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        return "Chromium is not installed (scripts/test installs Debian's)"
    return None


@contextmanager
def chromium_page(width: int = 1400, height: int = 900) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    executable = str(CHROMIUM) if CHROMIUM.exists() else shutil.which("chromium")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.errors = errors
            yield page
        finally:
            browser.close()


def open_graph(page: Any, html: Path) -> float:
    """Open a `graph --format html` page; the milliseconds its render took (layout and draw)."""
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-render-ms]", timeout=60_000)
    return float(page.get_attribute("body", "data-render-ms"))
