"""The typed checks (#23) in the real VS Code (code-server + Chromium, the built .vsix, the real
server): one finding of each of the four typed rules appears in the Problems panel with its
message, severity and line; the quick fix of `unknown-output-property` in a prompt template,
chosen from Ctrl+., writes the declared name and the finding goes."""

from __future__ import annotations

import pytest

from tests.editors.vscode.conftest import LaunchVSCode
from tests.editors.vscode.driver import wait_until

pytestmark = pytest.mark.timeout(600)

NAME = "typed-checks.relavium.yaml"
FLOW = """schema_version: '1.0'
workflow:
  id: four-typed-checks
  inputs:
    - { name: tier, type: string, required: true, validation: { enum: [free, pro] } }
  agents:
    - { id: triager, model: claude-sonnet-4, provider: anthropic, system_prompt: Classify. }
  nodes:
    - id: classify
      type: agent
      agent_ref: triager
      prompt_template: Classify the ticket.
      output_schema:
        type: object
        additionalProperties: false
        required: [severity]
        properties:
          severity: { type: number }
    - id: route
      type: condition
      expression: 'inputs.tier'
      branches:
        - { when: pro, target_node: fast }
        - { when: fre, target_node: fan }
    - id: report
      type: agent
      agent_ref: triager
      prompt_template: 'Rate {{ run.outputs["classify"].severty }}: {{ run.outputs["classify"] }}'
    - { id: fast, type: transform, transform: '2' }
    - { id: fan, type: parallel, parallel_of: [one, count] }
    - { id: one, type: transform, transform: '1' }
    - { id: count, type: transform, transform: 'run.outputs.fan.count' }
  edges:
    - { from: classify, to: route }
    - { from: classify, to: report }
    - { from: fan, to: one }
    - { from: fan, to: count }
"""
LINES = FLOW.splitlines()


def _at(needle: str) -> tuple[int, int]:
    """1-based line and column where `needle` starts."""
    line = next(index for index, row in enumerate(LINES, 1) if needle in row)
    return line, LINES[line - 1].index(needle) + 1


# rule id → (severity, where, words of its message)
EXPECTED = {
    "unknown-output-property": ("Error", _at("severty"), "did you mean `severity`?"),
    "template-filter-type": ("Error", _at('{{ run.outputs["classify"] }}'), "add `| json`"),
    "read-of-absent-value": ("Error", _at("count' }"), "which is always `null`"),
    "impossible-branch-value": ("Warning", _at("fre,"), "did you mean 'free'?"),
}


def test_each_typed_check_in_the_problems_panel_and_the_template_fix(
        launch_vscode: LaunchVSCode) -> None:
    vscode = launch_vscode(files={NAME: FLOW})
    vscode.open_file(NAME)
    problems = vscode.wait_for_problems(lambda found: len(found) >= len(EXPECTED))
    vscode.screenshot("typed-checks")
    assert len(problems) == len(EXPECTED), problems
    for rule, (severity, (line, column), words) in EXPECTED.items():
        [problem] = [p for p in problems if words in p.message]
        assert (problem.severity, problem.line, problem.column) == (severity, line, column), \
            (rule, problem)

    line, column = EXPECTED["unknown-output-property"][1]
    vscode.apply_code_action(line, column + 1, "Change `severty` to `severity`")
    wait_until("the fixed template", lambda: vscode.page.locator(
        ".monaco-editor .view-lines").inner_text(),
        holds=lambda shown: "].severity }}" in shown.replace("\u00a0", " "))
    vscode.wait_for_problems(lambda found: len(found) == len(EXPECTED) - 1
                             and not any("severty" in p.message for p in found))
