"""The extension in the real VS Code (code-server + Chromium): the server it starts reports the
bundled examples' problems in the Problems panel and answers hovers."""

from __future__ import annotations

import json

import pytest
import yaml

from analysis.schema.workflow import NODE_TYPES
from tests.conftest import CLEAN_WORKFLOW, EXAMPLES, FINDINGS_WORKFLOW, relavium_lsp
from tests.editors.vscode.conftest import LaunchVSCode
from tests.editors.vscode.driver import Problem

pytestmark = pytest.mark.timeout(600)

LEAK = EXAMPLES / "broken" / "ticket-triage-leak.relavium.yaml"
TRIAGE = EXAMPLES / "ticket-triage.relavium.yaml"
SEVERITIES = {"error": "Error", "warning": "Warning", "information": "Info", "hint": "Info"}


def test_problems_panel_shows_what_check_reports(launch_vscode: LaunchVSCode) -> None:
    # The same file through the real command line, outside the repository's configuration
    # (which excludes examples/broken/): what the Problems panel must list.
    checked = relavium_lsp("check", "--no-config", "--format", "json", str(LEAK))
    expected = {(SEVERITIES[found["severity"]], found["message"],
                 found["range"]["start"]["line"] + 1, found["range"]["start"]["character"] + 1)
                for found in json.loads(checked.stdout)}
    assert expected, "the broken example should have findings"

    vscode = launch_vscode(files={LEAK.name: LEAK.read_text(encoding="utf-8")})
    vscode.open_file(LEAK.name)

    def all_reported(problems: list[Problem]) -> bool:
        return {(p.severity, p.message, p.line, p.column) for p in problems} >= expected

    problems = vscode.wait_for_problems(all_reported)
    vscode.screenshot("problems")
    assert {p.source for p in problems} == {"relavium-lsp"}
    assert len(problems) == len(expected)


def test_hover_over_a_node_id_shows_the_node(launch_vscode: LaunchVSCode) -> None:
    text = TRIAGE.read_text(encoding="utf-8")
    lines = text.splitlines()
    line = next(index for index, row in enumerate(lines, 1) if row.strip() == "- id: classify")
    column = lines[line - 1].index("classify") + 2  # inside the id
    workflow = yaml.safe_load(text)["workflow"]
    node = next(node for node in workflow["nodes"] if node["id"] == "classify")
    successors = [edge["to"] for edge in workflow["edges"] if edge["from"] == "classify"]
    assert successors

    vscode = launch_vscode(files={TRIAGE.name: text})
    vscode.open_file(TRIAGE.name)
    shown = vscode.hover(line, column)
    vscode.screenshot("hover")
    assert "classify" in shown
    assert node["type"] in shown
    assert all(successor in shown for successor in successors)


def test_an_edit_updates_the_problems_panel(launch_vscode: LaunchVSCode) -> None:
    name = "demo.relavium.yaml"
    vscode = launch_vscode(files={name: CLEAN_WORKFLOW})
    vscode.open_file(name)
    vscode.wait_for_problems(lambda problems: not problems)
    scratch = vscode.workspace.parent / "expected"
    scratch.mkdir()
    (scratch / name).write_text(FINDINGS_WORKFLOW, encoding="utf-8")
    checked = relavium_lsp("check", "--no-config", "--format", "json", str(scratch / name))
    expected = {(SEVERITIES[found["severity"]], found["range"]["start"]["line"] + 1)
                for found in json.loads(checked.stdout)}
    assert len(expected) == 2

    vscode.replace_text(FINDINGS_WORKFLOW)
    problems = vscode.wait_for_problems(
        lambda problems: {(p.severity, p.line) for p in problems} == expected)
    assert all(p.source == "relavium-lsp" for p in problems)
    vscode.go_to(5, 44)  # after `colour: red`
    vscode.press("Backspace", len("colour: red"))
    vscode.type("label: red")
    vscode.wait_for_problems(lambda problems: [(p.severity, p.line) for p in problems]
                             == [("Warning", 6)])
    # After `type: ` the node types the schema allows, the server's answer.
    vscode.go_to(6, 24)
    vscode.press("Shift+End")
    vscode.type(" ")
    offered = vscode.completions(6, 25)
    assert set(NODE_TYPES) <= set(offered), offered
