"""ungranted-tool: a node's `tools` narrows its agent's grant (ADR-0094, enforced when the run
plan is built; `resolveGrant` in packages/core/src/engine/agent-runner.ts compares names exactly
and gives an agent without `tools` none)."""

from analysis.checks.analyze import analyze

AGENT = "{ id: reader, model: m, provider: anthropic, system_prompt: You read.%s }"


def workflow(agent_fields: str, node_tools: str, second_agent: str = "") -> str:
    return f"""schema_version: '1.0'
workflow:
  id: demo
  agents:
    - {AGENT % agent_fields}
{second_agent}  nodes:
    - {{ id: start, type: input }}
    - {{ id: scan, type: agent, agent_ref: reader, tools: {node_tools} }}
  edges:
    - {{ from: start, to: scan }}
"""


def ungranted(text: str) -> list[str]:
    return [d.message for d in analyze(text, "w.relavium.yaml").diagnostics
            if d.rule == "ungranted-tool"]


def test_a_tool_the_agent_does_not_grant_is_refused_names_compared_exactly() -> None:
    assert len(ungranted(workflow(", tools: [Read_File]", "[read_file]"))) == 1
    assert ungranted(workflow(", tools: [read_file]", "[read_file, read_file]")) == []


def test_an_empty_mcp_servers_list_adds_nothing_to_the_grant() -> None:
    assert len(ungranted(workflow(", mcp_servers: []", "[read_file]"))) == 1
    assert ungranted(workflow(", mcp_servers: [{ ref: github }]", "[read_file]")) == []


def test_an_agent_id_two_agents_share_is_not_judged() -> None:
    twin = f"    - {AGENT % ', tools: [read_file]'}\n"
    assert ungranted(workflow("", "[read_file]", twin)) == []


def test_a_malformed_grant_is_not_judged() -> None:
    assert ungranted(workflow(", tools: read_file", "[write_file]")) == []
    assert ungranted(workflow(", tools: [read_file]", "write_file")) == []


def test_the_closest_granted_tool_is_the_fix() -> None:
    text = workflow(", tools: [list_files]", "[list_file]")
    [diagnostic] = [d for d in analyze(text, "w.relavium.yaml").diagnostics
                    if d.rule == "ungranted-tool"]
    assert "did you mean 'list_files'?" in diagnostic.message
    [fix] = diagnostic.fixes
    assert [edit.new_text for edit in fix.edits] == ["list_files"]
    assert not fix.safe
