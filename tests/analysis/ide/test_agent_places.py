"""An agent file's agent across its project without LSP (analysis.ide.agent_places): which
workflows use it, and what renaming it changes or why it is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.ide.agent_places import agent_uses, plan_agent_rename
from analysis.ide.rename import RenameRefused
from analysis.project.workflows import ProjectWorkflow, project_workflows, workflow_paths
from analysis.project.workspace import AgentEntry, WorkspaceIndex


def agent(agent_id: str) -> str:
    return f"id: {agent_id}\nmodel: m\nprovider: anthropic\nsystem_prompt: Help.\n"


def workflow(use: str, agents: str = "[]") -> str:
    return (f"schema_version: '1.0'\nworkflow:\n  id: w\n  agents: {agents}\n  nodes:\n"
            f"    - {{ id: a, type: agent, agent_ref: {use} }}\n  edges: []\n")


def project(tmp_path: Path, files: dict[str, str]) -> tuple[WorkspaceIndex, list[ProjectWorkflow]]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / ".relavium").mkdir(exist_ok=True)
    return WorkspaceIndex(str(tmp_path)), project_workflows(str(tmp_path), {})


def the_agent(index: WorkspaceIndex, tmp_path: Path, name: str) -> AgentEntry:
    found = index.agent_file(str(tmp_path / name)).agent
    assert found is not None
    return found


def renamed(plan_edits: dict[str, list[tuple[int, int, str]]], path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    for start, end, new in sorted(plan_edits.get(str(path), []), reverse=True):
        text = text[:start] + new + text[end:]
    return text


AGENT = ".relavium/agents/summarizer.agent.yaml"


def test_the_walk_finds_workflows_only_and_an_open_text_wins(tmp_path: Path) -> None:
    _, _ = project(tmp_path, {AGENT: agent("summarizer"),
                              ".relavium/workflows/a.relavium.yaml": workflow("summarizer"),
                              "notes.yaml": "not: relavium\n"})
    path = str(tmp_path / ".relavium/workflows/a.relavium.yaml")
    assert workflow_paths(str(tmp_path)) == [path]
    [item] = project_workflows(str(tmp_path), {path: "x: [unclosed"})
    assert (item.text, item.workflow, item.problem) == ("x: [unclosed", None, "does not parse")


def test_uses_skip_a_workflow_whose_inline_agent_hides_the_file(tmp_path: Path) -> None:
    inline = "[{ id: summarizer, model: m, provider: anthropic, system_prompt: p }]"
    index, workflows = project(tmp_path, {
        AGENT: agent("summarizer"),
        ".relavium/workflows/uses.relavium.yaml": workflow("summarizer"),
        ".relavium/workflows/hides.relavium.yaml": workflow("summarizer", inline)})
    uses = agent_uses(index, the_agent(index, tmp_path, AGENT), workflows)
    assert [Path(use.workflow.path).name for use in uses] == ["uses.relavium.yaml"]


def test_a_rename_changes_the_id_the_refs_the_file_name_and_the_ref_paths(tmp_path: Path) -> None:
    index, workflows = project(tmp_path, {
        AGENT: agent("summarizer"),
        "flows/w.relavium.yaml": workflow(
            "summarizer", "[{ $ref: '../.relavium/agents/summarizer.agent.yaml' }]")})
    plan = plan_agent_rename(index, the_agent(index, tmp_path, AGENT), workflows, "2024", True)
    # a plain `2024` would be a number: the id is quoted
    assert renamed(plan.edits, tmp_path / AGENT) == agent("'2024'")
    assert renamed(plan.edits, tmp_path / "flows/w.relavium.yaml") == workflow(
        "'2024'", "[{ $ref: '../.relavium/agents/2024.agent.yaml' }]")
    assert plan.file_rename == (str(tmp_path / AGENT),
                                str(tmp_path / ".relavium/agents/2024.agent.yaml"))
    # without resource renames the file keeps its name, and so do the $refs
    kept = plan_agent_rename(index, the_agent(index, tmp_path, AGENT), workflows, "x", False)
    assert kept.file_rename is None
    assert renamed(kept.edits, tmp_path / "flows/w.relavium.yaml") == workflow(
        "x", "[{ $ref: '../.relavium/agents/summarizer.agent.yaml' }]")


def test_a_file_not_named_after_its_id_keeps_its_name(tmp_path: Path) -> None:
    index, workflows = project(tmp_path, {".relavium/agents/helper.yaml": agent("summarizer")})
    plan = plan_agent_rename(index, the_agent(index, tmp_path, ".relavium/agents/helper.yaml"),
                             workflows, "digest", True)
    assert plan.file_rename is None


@pytest.mark.parametrize(("files", "new_id", "message"), [
    ({}, "Digest", "'Digest' is not a valid agent id: use kebab-case"),
    ({".relavium/agents/other.agent.yaml": agent("digest")}, "digest",
     "already defines 'digest'"),
    ({".relavium/agents/digest.agent.yaml": agent("unrelated")}, "digest",
     "digest.agent.yaml already exists"),
    ({".relavium/workflows/broken.relavium.yaml": "x: [summarizer"}, "digest",
     "broken.relavium.yaml does not parse and may name 'summarizer'"),
    ({".relavium/workflows/inline.relavium.yaml": workflow(
        "summarizer", "[{ id: digest, model: m, provider: anthropic, system_prompt: p }]")},
     "digest", "has an inline agent 'digest'"),
])
def test_refusals(tmp_path: Path, files: dict[str, str], new_id: str, message: str) -> None:
    index, workflows = project(tmp_path, {AGENT: agent("summarizer"), **files})
    with pytest.raises(RenameRefused, match=message):
        plan_agent_rename(index, the_agent(index, tmp_path, AGENT), workflows, new_id, True)


def test_a_broken_workflow_that_cannot_name_the_agent_does_not_block(tmp_path: Path) -> None:
    index, workflows = project(tmp_path, {AGENT: agent("summarizer"),
                                          ".relavium/workflows/broken.relavium.yaml": "x: ["})
    plan = plan_agent_rename(index, the_agent(index, tmp_path, AGENT), workflows, "digest", True)
    assert list(plan.edits) == [str(tmp_path / AGENT)]
