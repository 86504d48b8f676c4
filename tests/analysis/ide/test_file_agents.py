"""What completion and hover say of an agent file's agent (analysis/ide with a workspace
`Resolution`): the ids a workflow can name across files, and one agent's facts at a glance."""

from pathlib import Path

from analysis.checks.analyze import analyze
from analysis.ide.completion import complete
from analysis.ide.describe import MAX_SCHEMA_PROPERTIES, file_agent_text
from analysis.project.workspace import AgentEntry, Resolution, WorkspaceIndex

WORKFLOW = """schema_version: '1.0'
workflow:
  id: demo
  agents:
    - { id: writer, model: m, provider: anthropic, system_prompt: p }
  nodes:
    - { id: n, type: agent, agent_ref:  }
  edges: []
"""


def project_with(tmp_path: Path, **agents: str) -> WorkspaceIndex:
    folder = tmp_path / ".relavium" / "agents"
    folder.mkdir(parents=True)
    for name, text in agents.items():
        (folder / f"{name}.agent.yaml").write_text(text, encoding="utf-8")
    return WorkspaceIndex(str(tmp_path))


def resolution_of(index: WorkspaceIndex, tmp_path: Path) -> Resolution:
    path = str(tmp_path / ".relavium" / "workflows" / "w.relavium.yaml")
    workflow = analyze(WORKFLOW, path).workflow
    assert workflow is not None
    return index.resolve(path, workflow)


def agent(agent_id: str, extra: str = "") -> str:
    return (f"id: {agent_id}\nmodel: claude-sonnet-4\nprovider: anthropic\n"
            f"system_prompt: You help.\n{extra}")


def test_agent_ref_completion_adds_the_project_agents_after_the_inline_ones(
        tmp_path: Path) -> None:
    index = project_with(tmp_path, one=agent("shared"), two=agent("shared"),
                         three=agent("reviewer"), four=agent("writer"))
    resolution = resolution_of(index, tmp_path)
    result = analyze(WORKFLOW)
    offset = WORKFLOW.index("agent_ref: ") + len("agent_ref: ")
    found = [(c.label, c.detail) for c in complete(result, WORKFLOW, offset, resolution)]
    # the inline writer hides the file's; two files defining `shared` leave it open
    assert found == [("writer", "agent"), ("reviewer", "agent · three.agent.yaml"),
                     ("shared", "agent · defined in several files")]
    # judged alone: the inline agents only, as before
    assert [c.label for c in complete(result, WORKFLOW, offset)] == ["writer"]


def test_a_file_agents_text_names_its_facts_and_cuts_the_long_ones(tmp_path: Path) -> None:
    properties = "".join(f"    p{i}: {{ type: string }}\n"
                         for i in range(MAX_SCHEMA_PROPERTIES + 2))
    index = project_with(tmp_path, wide=agent("wide", "output_schema:\n  type: object\n"
                                                      f"  properties:\n{properties}"),
                         mcp=agent("mcp", "mcp_servers:\n  - { name: s, command: x }\n"))
    resolution = resolution_of(index, tmp_path)
    wide = resolution.agent("wide")
    assert isinstance(wide, AgentEntry)
    text = file_agent_text(wide)
    assert "output_schema: `object` with `p0`" in text
    assert f"`p{MAX_SCHEMA_PROPERTIES - 1}` and 2 more" in text
    assert f"`p{MAX_SCHEMA_PROPERTIES}`" not in text
    assert "tools" not in text  # it grants none
    assert "> You help." in text
    mcp = resolution.agent("mcp")
    assert isinstance(mcp, AgentEntry)
    # its MCP servers complete the grant when the run starts (ADR-0094 §2)
    assert "tools: its MCP servers' (known when the run starts)" in file_agent_text(mcp)
