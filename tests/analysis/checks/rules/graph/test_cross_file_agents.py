"""The workspace index is an optional input of `analyze`: without one every rule judges the file
alone exactly as before; with one, the cross-file rules judge what the engine's order resolves
(packages/core/src/dag.ts resolveAgents, HodeTech/Relavium 839f2bd)."""

from pathlib import Path

from analysis.checks.analyze import analyze
from analysis.project.workspace import WorkspaceIndex

FLOW = """schema_version: '1.0'
workflow:
  id: demo
  agents:
    - { id: writer, model: m, provider: anthropic, system_prompt: p }
    - $ref: ./%s
  nodes:
    - { id: start, type: input }
    - { id: draft, type: agent, agent_ref: writer }
    - { id: review, type: agent, agent_ref: %s, tools: [%s] }
  edges:
    - { from: start, to: draft }
    - { from: draft, to: review }
"""
AGENT = "id: reviewer\nmodel: m\nprovider: openai\nsystem_prompt: p\ntools: [read_file]\n"


def rules(tmp_path: Path, text: str, indexed: bool) -> list[str]:
    (tmp_path / "reviewer.agent.yaml").write_text(AGENT, encoding="utf-8")
    path = tmp_path / "w.relavium.yaml"
    index = WorkspaceIndex(str(tmp_path)) if indexed else None
    return [d.rule for d in analyze(text, str(path), workspace=index).diagnostics]


def test_without_an_index_a_ref_keeps_every_cross_file_rule_quiet(tmp_path: Path) -> None:
    for text in (FLOW % ("reviewer.agent.yaml", "reveiwer", "read_file"),
                 FLOW % ("missing.agent.yaml", "reviewer", "write_file")):
        assert rules(tmp_path, text, indexed=False) == []


def test_with_an_index_the_same_files_are_judged_across_files(tmp_path: Path) -> None:
    assert rules(tmp_path, FLOW % ("reviewer.agent.yaml", "reveiwer", "read_file"), True) == \
        ["unknown-agent"]
    assert rules(tmp_path, FLOW % ("reviewer.agent.yaml", "reviewer", "write_file"), True) == \
        ["ungranted-tool"]
    # A missing file: the error at the `$ref`, and no unknown-agent guess about what it held.
    assert rules(tmp_path, FLOW % ("missing.agent.yaml", "reviewer", "read_file"), True) == \
        ["unresolved-agent-file"]
    assert rules(tmp_path, FLOW % ("reviewer.agent.yaml", "reviewer", "read_file"), True) == []


def test_a_long_path_is_cut_in_the_message_and_whole_in_data(tmp_path: Path) -> None:
    name = "a" * 200 + ".agent.yaml"
    path = tmp_path / "w.relavium.yaml"
    result = analyze(FLOW % (name, "reviewer", "read_file"), str(path),
                     workspace=WorkspaceIndex(str(tmp_path)))
    [diagnostic] = [d for d in result.diagnostics if d.rule == "unresolved-agent-file"]
    assert name not in diagnostic.message and "…" in diagnostic.message
    assert diagnostic.data is not None and str(diagnostic.data["path"]).endswith(name)


def test_two_project_files_with_the_id_a_node_names_make_its_agent_ambiguous(
        tmp_path: Path) -> None:
    agents = tmp_path / ".relavium" / "agents"
    agents.mkdir(parents=True)
    for name in ("reviewer.agent.yaml", "reviewer-old.yaml"):
        (agents / name).write_text(AGENT, encoding="utf-8")
    path = tmp_path / ".relavium" / "workflows" / "w.relavium.yaml"
    text = FLOW.replace("    - $ref: ./%s\n", "") % ("reviewer", "read_file")
    result = analyze(text, str(path), workspace=WorkspaceIndex(str(tmp_path)))
    [diagnostic] = result.diagnostics
    assert diagnostic.rule == "ambiguous-agent"
    assert result.source.text[result.source.offset(diagnostic.range.start):].startswith(
        "reviewer, tools")
    # ungranted-tool does not guess which of the two grants apply
    widened = text.replace("tools: [read_file]", "tools: [write_file]")
    assert [d.rule for d in analyze(widened, str(path),
                                    workspace=WorkspaceIndex(str(tmp_path))).diagnostics] == \
        ["ambiguous-agent"]
