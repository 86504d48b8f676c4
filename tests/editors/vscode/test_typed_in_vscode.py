"""Typed completion and hover in the real VS Code (code-server + Chromium): after
`run.outputs["classify"].` the suggest widget lists classify's output_schema properties, each
with its type as the detail; a hover over a read shows its type and where it comes from."""

from __future__ import annotations

import pytest

from tests.analysis.ide.typed_workflow import TYPED
from tests.editors.vscode.conftest import LaunchVSCode
from tests.editors.vscode.driver import wait_until

pytestmark = pytest.mark.timeout(600)

READ = 'run.outputs["classify"].'
TYPING = TYPED.replace("transform: 'run.outputs[\"classify\"].labels[0].name'",
                       f"transform: '{READ}'")
NAME = "typed.relavium.yaml"
TYPED_AT = f"transform: '{READ}"  # `report`'s transform, the cursor after the dot


def _place(text: str, needle: str, back: int = 0) -> tuple[int, int]:
    """1-based line and column just after `needle` (minus `back` characters)."""
    lines = text.splitlines()
    line = next(index for index, row in enumerate(lines, 1) if needle in row)
    return line, lines[line - 1].index(needle) + len(needle) - back + 1


def test_typed_completion_and_hover(launch_vscode: LaunchVSCode) -> None:
    vscode = launch_vscode(files={NAME: TYPING})
    vscode.open_file(NAME)
    # the server has the document once its diagnostics are in (the broken expression's)
    line, column = _place(TYPING, TYPED_AT)
    vscode.wait_for_problems(lambda problems: any(p.line == line for p in problems))
    vscode.go_to(line, column)
    vscode.press("Control+Space")
    rows = vscode.page.locator(".suggest-widget.visible .monaco-list-row")
    labels = wait_until("the typed completions",
                        lambda: [text.strip() for text in
                                 rows.locator(".label-name").all_inner_texts()] or None)
    # VS Code ranks `ticket-id` (its edit starts at the `.`, rewritten `["ticket-id"]`) first
    assert sorted(labels) == ["labels", "severity", "ticket-id", "topic"]
    # the focused row shows its detail: the property's type
    focused = vscode.page.locator(".suggest-widget.visible .monaco-list-row.focused")
    details = {}
    for _ in labels:
        label = wait_until("the focused item", lambda: focused.locator(
            ".label-name").inner_text().strip() or None)
        details[label] = wait_until(f"{label}'s detail", lambda: focused.locator(
            ".details-label").inner_text().strip() or None)
        vscode.page.keyboard.press("ArrowDown")
    assert details == {"severity": '"low" | "high"', "topic": "string (optional)",
                       "ticket-id": "number (optional)",
                       "labels": "{ name?: string; score?: number; [key: string]: unknown }[]"}
    vscode.screenshot("typed-completion")
    vscode.page.keyboard.press("Escape")

    # inside `labels` of `left`'s `run.outputs.classify.labels.length`
    text = vscode.hover(*_place(TYPING, "run.outputs.classify.lab", back=1))
    vscode.screenshot("typed-hover")
    assert "labels: { name?: string; score?: number; [key: string]: unknown }[]" in text
    assert "classify's output_schema" in text
