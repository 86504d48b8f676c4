"""Fixtures of the real VS Code tests: the .vsix built from editors/vscode, Debian's Chromium,
and `launch_vscode`, which starts code-server with a fresh profile on a workspace the test made
and hands back the driver (tests/editors/README.md).

Outside scripts/test, a machine without code-server (tests/editors/install-code-server) skips
these tests; scripts/test sets RELAVIUM_EDITOR_TESTS=required, which turns that into a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.conftest import REPO_ROOT
from tests.editors.vscode.driver import WAIT_S, CodeServer, VSCode, code_server_binary

EXTENSION = REPO_ROOT / "editors" / "vscode"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
# A quiet workbench: no welcome page, tips, telemetry or update checks; nothing restored.
WORKBENCH_SETTINGS: dict[str, Any] = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoUpdate": False,
    "extensions.autoCheckUpdates": False,
    "update.mode": "none",
    "window.restoreWindows": "none",
    "security.workspace.trust.startupPrompt": "never",
    "security.workspace.trust.untrustedFiles": "open",
}

LaunchVSCode = Callable[..., VSCode]


def _unavailable(reason: str) -> None:
    if os.environ.get("RELAVIUM_EDITOR_TESTS") == "required":
        pytest.fail(f"{reason} (scripts/test requires the real VS Code tests to run)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def vsix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The extension package for this machine, built once per session from the current
    editors/vscode as CI builds it (scripts/package: with the server's wheelhouse)."""
    if not code_server_binary().exists():
        _unavailable(f"code-server is not installed at {code_server_binary()}: run "
                     "tests/editors/install-code-server (scripts/test does)")
    if shutil.which("npm") is None:
        _unavailable("npm is missing: the .vsix cannot be built")
    out = tmp_path_factory.mktemp("vsix") / "relavium-lsp.vsix"
    steps = [["scripts/package", "", str(out)]]
    if not (EXTENSION / "node_modules").is_dir():
        steps.insert(0, ["npm", "ci", "--prefer-offline", "--no-audit", "--no-fund"])
    for step in steps:
        done = subprocess.run(step, cwd=EXTENSION, capture_output=True, text=True, check=False,
                              timeout=600, env={**os.environ, "PYTHON": sys.executable})
        assert done.returncode == 0, f"{' '.join(step)} failed:\n{done.stdout}{done.stderr}"
    return out


# Package-scoped, not session: Playwright's sync API keeps an event loop running on the main
# thread while it is open, and every asyncio test after this package (pytest-lsp's) would fail.
@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing (scripts/test installs Debian's chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def repo_server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's relavium-lsp: `.venv/bin/relavium-lsp` as scripts/test installs it, else
    (a worktree without its own .venv) a launcher running this interpreter on this checkout."""
    installed = REPO_ROOT / ".venv" / "bin" / "relavium-lsp"
    if installed.exists():
        return installed
    launcher = tmp_path_factory.mktemp("server") / "relavium-lsp"
    launcher.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO_ROOT}" exec "{sys.executable}" '
                        '-m server "$@"\n')
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
    return launcher


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[_FAILED] = report.failed
    return report


_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def launch_vscode(request: pytest.FixtureRequest, tmp_path: Path, vsix: Path, browser: Browser,
                  repo_server: Path) -> Iterator[LaunchVSCode]:
    """`launch_vscode(files=None, settings=None, env=None, trusted=True) -> VSCode`.

    Writes `files` ({relative path: text}) into a fresh workspace folder, starts code-server
    with a fresh profile holding only the .vsix, and opens the folder in a new browser page.
    `settings` go over the defaults (a quiet workbench, `relavium.server.path` = the repository's
    server); a key set to None is left out. `env` is code-server's whole environment, which the
    extension host and the server inherit as is (default: this process's). `trusted=False`
    opens the folder in Restricted Mode. On a failing test, a screenshot and code-server's log
    stay in the test's tmp_path.
    """
    opened: list[tuple[CodeServer, VSCode]] = []

    def launch(files: Mapping[str, str] | None = None,
               settings: Mapping[str, Any] | None = None,
               env: Mapping[str, str] | None = None,
               trusted: bool = True) -> VSCode:
        root = tmp_path / f"vscode-{len(opened)}"
        workspace = root / "workspace"
        workspace.mkdir(parents=True)
        for relative, text in (files or {}).items():
            (workspace / relative).parent.mkdir(parents=True, exist_ok=True)
            (workspace / relative).write_text(text, encoding="utf-8")
        # VSCODE_CLI=1: VS Code would otherwise replace the environment of the extension host
        # (and so of the server) with the one a login shell of the user makes.
        environment = {**(os.environ if env is None else env), "VSCODE_CLI": "1"}
        server = CodeServer(root, environment, trusted)
        merged = {**WORKBENCH_SETTINGS, "relavium.server.path": str(repo_server),
                  **(settings or {})}
        user_settings = server.user_data_dir / "User" / "settings.json"
        user_settings.parent.mkdir(parents=True)
        user_settings.write_text(json.dumps({k: v for k, v in merged.items() if v is not None}))
        server.install_extension(vsix)
        server.start()
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        context.set_default_timeout(WAIT_S * 1000)
        editor = VSCode(context.new_page(), server, workspace, root)
        opened.append((server, editor))
        editor.load()
        return editor

    yield launch
    failed = request.node.stash.get(_FAILED, False)
    for server, editor in opened:
        if failed:
            editor.screenshot("at-failure")
        editor.page.context.close()
        server.stop()
