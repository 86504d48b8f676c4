"""Cross-file agent features in the real VS Code (code-server, the built .vsix, the real
server): in a project in the engine's layout, hover on an `agent_ref` shows the agent defined in
`.relavium/agents/`, go to definition (F12) opens that file at its `id`, and the quick fix
"Create agent `x`" writes the agent file through the server's command."""

from __future__ import annotations

import pytest

from tests.editors.vscode.conftest import LaunchVSCode
from tests.editors.vscode.driver import wait_until

pytestmark = pytest.mark.timeout(600)

AGENT = ("id: reviewer\nmodel: claude-sonnet-4-5\nprovider: anthropic\n"
         "system_prompt: You review drafts.\n")
FLOW = """schema_version: '1.0'
workflow:
  id: demo
  nodes:
    - { id: start, type: input }
    - { id: review, type: agent, agent_ref: reviewer }
  edges:
    - { from: start, to: review }
"""
AGENT_FILE = ".relavium/agents/reviewer.agent.yaml"
# at the project's top (the folder holding .relavium/), where Quick Open finds it by name
FLOW_FILE = "flow.relavium.yaml"


def test_hover_and_definition_reach_an_agent_in_another_file(
        launch_vscode: LaunchVSCode) -> None:
    vscode = launch_vscode(files={AGENT_FILE: AGENT, FLOW_FILE: FLOW})
    vscode.open_file(FLOW_FILE)
    line = FLOW.splitlines().index("    - { id: review, type: agent, agent_ref: reviewer }") + 1
    column = FLOW.splitlines()[line - 1].index("agent_ref: reviewer") + len("agent_ref: re") + 1
    # the agent comes from its file: judged alone it would be "no agent has this id"
    shown = wait_until("the agent file's agent in the hover", lambda: vscode.hover(line, column),
                       holds=lambda text: "claude-sonnet-4-5" in text)
    assert "reviewer" in shown and "anthropic" in shown
    assert "reviewer.agent.yaml" in shown
    assert "You review drafts." in shown

    vscode.go_to(line, column)
    vscode.press("F12")
    wait_until("the agent file's editor",
               lambda: vscode.page.locator(
                   '.tab.active[data-resource-name="reviewer.agent.yaml"]').count())
    wait_until("the cursor on the agent's id", vscode.cursor, holds=lambda at: at == (1, 5))


def test_the_create_agent_quick_fix_writes_the_agent_file(launch_vscode: LaunchVSCode) -> None:
    """The code action runs the server's `relavium.createFiles` through the client, as a user's
    Ctrl+. does; the new agent resolves, so the warning goes."""
    missing = FLOW.replace("agent_ref: reviewer", "agent_ref: scout")
    vscode = launch_vscode(files={AGENT_FILE: AGENT, FLOW_FILE: missing})
    vscode.open_file(FLOW_FILE)
    [problem] = vscode.wait_for_problems(
        lambda found: any("agent_ref 'scout'" in p.message for p in found))
    vscode.apply_code_action(problem.line, problem.column + 1, "Create agent")
    created = vscode.workspace / ".relavium" / "agents" / "scout.agent.yaml"
    wait_until("the agent file", created.exists)
    assert created.read_text(encoding="utf-8").startswith("id: scout\n")
    vscode.wait_for_problems(lambda found: not any("'scout'" in p.message for p in found))
