"""The workspace agent index (analysis/project/workspace.py): what a workflow resolves across
files, read safely, kept up to date one file at a time."""

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from analysis.checks.analyze import analyze
from analysis.document.model import AgentDecl
from analysis.document.yaml_profile import MAX_SOURCE_BYTES
from analysis.project.workspace import AgentEntry, Resolution, WorkspaceIndex, project_root
from analysis.schema.output_schema import compile_output_schema
from analysis.schema.value_types import NumberType, ObjectType

AGENT = "id: {id}\nmodel: claude-sonnet-4\nprovider: anthropic\nsystem_prompt: {prompt}\n"


def workflow_text(*agents: str, refs: tuple[str, ...] = (), uses: tuple[str, ...] = ()) -> str:
    lines = ["schema_version: '1.0'", "workflow:", "  id: demo", "  agents:"]
    lines += [f"    - {{ id: {agent}, model: m, provider: anthropic, system_prompt: p }}"
              for agent in agents]
    lines += [f"    - $ref: {ref}" for ref in refs]
    lines += ["  nodes:", "    - { id: start, type: input }"]
    lines += [f"    - {{ id: n{i}, type: agent, agent_ref: {use} }}" for i, use in enumerate(uses)]
    lines += ["  edges: []"]
    return "\n".join(lines) + "\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".relavium" / "agents").mkdir(parents=True)
    (tmp_path / ".relavium" / "workflows").mkdir()
    return tmp_path


def write_agent(path: Path, agent_id: str, prompt: str = "You help.") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(AGENT.format(id=agent_id, prompt=prompt), encoding="utf-8")
    return path


def resolve(index: WorkspaceIndex, path: Path, text: str) -> Resolution:
    workflow = analyze(text, str(path)).workflow
    assert workflow is not None
    return index.resolve(str(path), workflow)


def test_inline_agents_come_first_then_ref_files_then_the_project_folder(project: Path) -> None:
    # dag.ts resolveAgents (839f2bd): the registry fills only ids no inline agent has.
    write_agent(project / ".relavium" / "agents" / "writer.agent.yaml", "writer")
    write_agent(project / ".relavium" / "agents" / "reviewer.yaml", "reviewer")
    write_agent(project / "shared" / "summarizer.agent.yaml", "summarizer")
    flow = project / ".relavium" / "workflows" / "w.relavium.yaml"
    resolution = resolve(WorkspaceIndex(str(project)), flow, workflow_text(
        "writer", refs=("../../shared/summarizer.agent.yaml",)))
    assert resolution.complete and resolution.in_project
    assert isinstance(resolution.agent("writer"), AgentDecl)
    summarizer = resolution.agent("summarizer")
    assert isinstance(summarizer, AgentEntry)
    assert summarizer.path == str(project / "shared" / "summarizer.agent.yaml")
    assert isinstance(resolution.agent("reviewer"), AgentEntry)
    assert resolution.agent("nobody") is None
    assert resolution.known_ids() == {"writer", "summarizer", "reviewer"}


def test_the_project_agents_are_every_agent_file_under_relavium(project: Path) -> None:
    # catalog.ts parses every YAML in .relavium/agents/; config-spec.md: a workspace loads every
    # *.agent.yaml under .relavium/. A workflows/ file is a workflow (kinds.py), not an agent.
    relavium = project / ".relavium"
    write_agent(relavium / "agents" / "short.yml", "short")
    write_agent(relavium / "agents" / "deep" / "nested.yaml", "nested")
    write_agent(relavium / "shared" / "common.agent.yaml", "common")
    write_agent(relavium / "shared" / "notes.yaml", "not-an-agent")
    write_agent(relavium / "workflows" / "odd.agent.yaml", "a-workflow")
    flow = relavium / "workflows" / "w.relavium.yaml"
    resolution = resolve(WorkspaceIndex(str(project)), flow, workflow_text())
    assert resolution.known_ids() == {"short", "nested", "common"}
    assert resolution.complete


def test_a_folder_that_cannot_be_listed_keeps_the_resolution_open(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = project / ".relavium" / "shared"
    write_agent(locked / "x.agent.yaml", "x")
    listing = os.scandir

    def refuse(path: str) -> object:  # as a folder this user may not enter (root enters any)
        if os.path.abspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", refuse)
    flow = project / ".relavium" / "workflows" / "w.relavium.yaml"
    resolution = resolve(WorkspaceIndex(str(project)), flow, workflow_text(uses=("x",)))
    assert not resolution.complete
    assert [file.problem for file in resolution.folder] == ["cannot be listed"]


def test_an_entry_reports_its_facts(project: Path) -> None:
    path = project / "a.agent.yaml"
    path.write_text("id: a\nmodel: gpt-4o\nprovider: openai\nsystem_prompt: |\n  one\n  two\n"
                    "  three\n  four\ntools: [read_file]\noutput_schema: { type: object }\n",
                    encoding="utf-8")
    entry = WorkspaceIndex(str(project)).agent_file(str(path)).agent
    assert entry is not None and entry.valid
    assert (entry.model, entry.provider, entry.tools) == ("gpt-4o", "openai", ("read_file",))
    assert entry.system_prompt_head == "one\ntwo\nthree…"
    assert entry.output_schema is not None and entry.input_schema is None
    assert entry.range.start.line == 0 and entry.range.start.character == 4


def test_mcp_servers_make_a_grant_unknown(project: Path) -> None:
    path = project / "a.agent.yaml"
    path.write_text(AGENT.format(id="a", prompt="p") + "tools: [x]\nmcp_servers:\n"
                    "  - { id: gh, transport: stdio, command: gh-mcp }\n", encoding="utf-8")
    entry = WorkspaceIndex(str(project)).agent_file(str(path)).agent
    assert entry is not None and entry.tools is None


@pytest.mark.parametrize(("make", "reason"), [
    (lambda root: None, "does not exist"),
    (lambda root: (root / "x.agent.yaml").mkdir(), "is not a regular file"),
    (lambda root: (root / "x.agent.yaml").write_bytes(b"id: \xff\n"), "is not UTF-8 text"),
    (lambda root: (root / "x.agent.yaml").write_text("id: [\n"), "is not valid YAML"),
    (lambda root: (root / "x.agent.yaml").write_text("model: m\n"), "is not a valid agent"),
    (lambda root: (root / "x.agent.yaml").write_text(
        "schema_version: '1.0'\nworkflow: { id: w, nodes: [], edges: [] }\n"),
     "is a workflow, not an agent"),
    (lambda root: (root / "x.agent.yaml").write_text("x" * (MAX_SOURCE_BYTES + 1)),
     "is too large"),
])
def test_a_file_that_gives_no_agent_says_why(
        project: Path, make: Callable[[Path], object], reason: str) -> None:
    make(project)
    file = WorkspaceIndex(str(project)).agent_file(str(project / "x.agent.yaml"))
    assert file.problem is not None and file.problem.startswith(reason)


def test_a_link_out_of_the_root_is_never_followed(tmp_path: Path) -> None:
    outside = write_agent(tmp_path / "outside" / "secret.agent.yaml", "secret")
    root = tmp_path / "root"
    root.mkdir()
    (root / "link.agent.yaml").symlink_to(outside)
    file = WorkspaceIndex(str(root)).agent_file(str(root / "link.agent.yaml"))
    assert file.agent is None and file.problem is not None and "outside" in file.problem


def test_a_ref_leaving_the_root_is_refused_without_reading(project: Path) -> None:
    flow = project / "w.relavium.yaml"
    resolution = resolve(WorkspaceIndex(str(project)), flow,
                         workflow_text(refs=("../elsewhere.agent.yaml", "/etc/hostname")))
    assert [ref.file.problem.split(":")[0] for ref in resolution.refs if ref.file.problem] == \
        ["is outside the project"] * 2
    assert not resolution.complete


def test_a_ref_leaving_the_root_of_a_workflow_in_no_project_is_not_judged(tmp_path: Path) -> None:
    write_agent(tmp_path / "elsewhere.agent.yaml", "elsewhere")
    root = tmp_path / "root"
    flow = root / "w.relavium.yaml"
    root.mkdir()
    resolution = resolve(WorkspaceIndex(str(root)), flow,
                         workflow_text(refs=("../elsewhere.agent.yaml",)))
    [ref] = resolution.refs
    assert (ref.file.agent, ref.file.problem) == (None, None)  # not read, no error
    assert not resolution.complete and not resolution.in_project


def test_a_ref_is_relative_to_the_workflow_folder(project: Path) -> None:
    write_agent(project / "flows" / "agents" / "near.agent.yaml", "near")
    flow = project / "flows" / "w.relavium.yaml"
    resolution = resolve(WorkspaceIndex(str(project)), flow,
                         workflow_text(refs=("./agents/near.agent.yaml",)))
    assert resolution.known_ids() == {"near"}


def test_update_recomputes_only_the_file_changed(project: Path) -> None:
    first = write_agent(project / ".relavium" / "agents" / "a.agent.yaml", "alpha")
    second = write_agent(project / ".relavium" / "agents" / "b.agent.yaml", "beta")
    index = WorkspaceIndex(str(project))
    kept = index.agent_file(str(second))
    index.agent_file(str(first))
    index.update(str(first), AGENT.format(id="gamma", prompt="p"))  # an editor's unsaved text
    assert index.agent_file(str(first)).agent.id == "gamma"  # type: ignore[union-attr]
    assert index.agent_file(str(second)) is kept
    first.unlink()
    index.update(str(first), None)  # changed on disk: read again when next needed
    assert index.agent_file(str(first)).problem == "does not exist"
    flow = project / ".relavium" / "workflows" / "w.relavium.yaml"
    assert resolve(index, flow, workflow_text()).known_ids() == {"beta"}


def test_a_new_file_in_the_folder_is_seen_after_its_update(project: Path) -> None:
    index = WorkspaceIndex(str(project))
    flow = project / ".relavium" / "workflows" / "w.relavium.yaml"
    assert resolve(index, flow, workflow_text()).known_ids() == set()
    added = write_agent(project / ".relavium" / "agents" / "new.agent.yaml", "new")
    index.update(str(added), None)
    assert resolve(index, flow, workflow_text()).known_ids() == {"new"}


def test_past_the_cap_the_index_is_incomplete_and_judges_nothing_missing(project: Path) -> None:
    for number in range(3):
        write_agent(project / ".relavium" / "agents" / f"a{number}.agent.yaml", f"a{number}")
    index = WorkspaceIndex(str(project), max_agent_files=2)
    flow = project / ".relavium" / "workflows" / "w.relavium.yaml"
    resolution = resolve(index, flow, workflow_text(uses=("a2",)))
    assert index.incomplete and not resolution.complete
    assert resolution.known_ids() == {"a0", "a1"}


def test_project_root_is_the_folder_holding_relavium(tmp_path: Path) -> None:
    flow = tmp_path / "proj" / ".relavium" / "workflows" / "w.relavium.yaml"
    flow.parent.mkdir(parents=True)
    assert project_root(str(flow), "/") == str(tmp_path / "proj")
    loose = tmp_path / "elsewhere" / "deep" / "w.relavium.yaml"
    loose.parent.mkdir(parents=True)
    # outside any project: the current folder when the file is in it, else the file's folder
    assert project_root(str(loose), str(tmp_path / "elsewhere")) == str(tmp_path / "elsewhere")
    assert project_root(str(loose), str(tmp_path / "proj")) == str(loose.parent)


def test_an_agent_in_another_file_gives_its_output_schema(project: Path) -> None:
    # agent-runner.ts: `node.output_schema ?? agent.output_schema`, whatever file the agent is in.
    path = project / ".relavium" / "agents" / "typed.agent.yaml"
    path.write_text(AGENT.format(id="typed", prompt="p") + "output_schema:\n  type: object\n"
                    "  properties: { score: { type: number } }\n", encoding="utf-8")
    write_agent(project / ".relavium" / "agents" / "plain.agent.yaml", "plain")
    flow = project / ".relavium" / "workflows" / "w.relavium.yaml"
    text = workflow_text(uses=("typed", "plain"))
    workflow = analyze(text, str(flow)).workflow
    assert workflow is not None
    resolution = WorkspaceIndex(str(project)).resolve(str(flow), workflow)
    typed, plain = workflow.node("n0"), workflow.node("n1")
    assert typed is not None and plain is not None
    assert workflow.output_schema_of(typed) is None  # judged alone: not known
    entry = workflow.output_schema_of(typed, resolution.file_agent)
    assert entry is not None and entry.key.start > 0
    typed_output = compile_output_schema(entry.value).value_type
    assert isinstance(typed_output, ObjectType)
    assert [(name, type(value)) for name, value in typed_output.properties or ()] == \
        [("score", NumberType)]
    assert workflow.output_schema_of(plain, resolution.file_agent) is None
