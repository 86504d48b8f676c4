"""References and rename of an agent across the files of its project, over real stdio: an
agent file's agent is named by `agent_ref`s in workflows open or not (read from disk), and a
rename changes its `id`, every `agent_ref` resolving to it, the file's name when it follows the
id (a `RenameFile`, only for a client taking resource renames) and the `$ref`s naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path

from server.lsp.positions import LineIndex
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier, position
from tests.server.lsp.test_workspace_agents import write_agent

pytestmark = pytest.mark.asyncio(loop_scope="module")


def agent(agent_id: str) -> str:
    return f"id: {agent_id}\nmodel: claude-sonnet-4\nprovider: anthropic\nsystem_prompt: Help.\n"


def workflow(*uses: str, agents: str = "[]") -> str:
    lines = ["schema_version: '1.0'", "workflow:", "  id: demo", f"  agents: {agents}",
             "  nodes:", "    - { id: start, type: input }"]
    lines += [f"    - {{ id: n{i}, type: agent, agent_ref: {use} }}" for i, use in enumerate(uses)]
    lines += ["  edges:"] + [f"    - {{ from: start, to: n{i} }}" for i in range(len(uses))]
    return "\n".join(lines) + "\n"


def places(found: list[types.Location] | None, root: Path) -> set[tuple[str, int, str]]:
    """(file relative to the workspace, line, the text the range covers)."""
    shown = set()
    for item in found or []:
        path = Path(str(to_fs_path(item.uri)))
        text = path.read_text(encoding="utf-8")
        lines = LineIndex(text)
        start, end = lines.client_offset(item.range.start), lines.client_offset(item.range.end)
        shown.add((path.relative_to(root).as_posix(), item.range.start.line, text[start:end]))
    return shown


def applied(client: RelaviumClient, edit: types.WorkspaceEdit) -> dict[str, str]:
    """Every file's text once the edit is made (open documents in the client, the others on
    disk), and the file renames made on disk, as an editor would, telling a server that watches
    files what changed on disk."""
    texts: dict[str, str] = {}
    events: list[types.FileEvent] = []

    def edit_text(uri: str, edits: list[types.TextEdit]) -> None:
        if uri in client.documents:
            client.apply_text_edits(uri, edits)
            texts[uri] = client.text(uri)
            return
        path = Path(str(to_fs_path(uri)))
        text = path.read_text(encoding="utf-8")
        lines = LineIndex(text)
        for item in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                           reverse=True):
            start = lines.client_offset(item.range.start)
            end = lines.client_offset(item.range.end)
            text = text[:start] + item.new_text + text[end:]
        path.write_text(text, encoding="utf-8")
        texts[uri] = text
        events.append(types.FileEvent(uri=uri, type=types.FileChangeType.Changed))

    if edit.document_changes is not None:
        for change in edit.document_changes:
            if isinstance(change, types.TextDocumentEdit):
                if change.text_document.uri in client.documents:
                    assert change.text_document.version == \
                        client.documents[change.text_document.uri].version
                else:
                    assert change.text_document.version is None
                edit_text(change.text_document.uri,
                          [e for e in change.edits if isinstance(e, types.TextEdit)])
            else:
                assert isinstance(change, types.RenameFile)
                old, new = Path(str(to_fs_path(change.old_uri))), Path(str(to_fs_path(
                    change.new_uri)))
                assert not new.exists()
                old.rename(new)
                texts[change.new_uri] = new.read_text(encoding="utf-8")
                events += [types.FileEvent(uri=change.old_uri, type=types.FileChangeType.Deleted),
                           types.FileEvent(uri=change.new_uri, type=types.FileChangeType.Created)]
    else:
        assert edit.changes is not None
        for uri, edits in edit.changes.items():
            edit_text(uri, list(edits))
    if any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations):
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(events))
    return texts


async def test_references_of_an_agent_reach_workflows_that_are_not_open(
        client: RelaviumClient, workspace: Workspace) -> None:
    write_agent(client, workspace, ".relavium/agents/scout.agent.yaml", agent("scout"))
    closed = workflow("scout", "scout")
    workspace.write(".relavium/workflows/closed-scout.relavium.yaml", closed)
    # an inline `scout` hides the file's: not a reference to it
    workspace.write(".relavium/workflows/shadow-scout.relavium.yaml", workflow(
        "scout", agents="[{ id: scout, model: m, provider: anthropic, system_prompt: p }]"))
    opened_text = workflow("scout")
    opened = workspace.open(".relavium/workflows/open-scout.relavium.yaml", opened_text)
    await client.diagnostics_for(opened)

    found = await client.text_document_references_async(types.ReferenceParams(
        text_document=identifier(opened),
        position=position(client, opened_text, "agent_ref: scout", at=len("agent_ref: s")),
        context=types.ReferenceContext(include_declaration=True)))
    expected = {(".relavium/agents/scout.agent.yaml", 0, "scout"),
                (".relavium/workflows/open-scout.relavium.yaml", 6, "scout"),
                (".relavium/workflows/closed-scout.relavium.yaml", 6, "scout"),
                (".relavium/workflows/closed-scout.relavium.yaml", 7, "scout")}
    assert places(found, workspace.root) == expected

    # from the agent file's own id, open in the editor
    agent_uri = workspace.uri(".relavium/agents/scout.agent.yaml")
    client.open(agent_uri, agent("scout"))
    await client.diagnostics_for(agent_uri)
    from_file = await client.text_document_references_async(types.ReferenceParams(
        text_document=identifier(agent_uri), position=types.Position(line=0, character=6),
        context=types.ReferenceContext(include_declaration=False)))
    assert places(from_file, workspace.root) == expected - {
        (".relavium/agents/scout.agent.yaml", 0, "scout")}
    client.close(agent_uri)


async def test_rename_an_agent_across_files_and_its_file_name(
        client: RelaviumClient, workspace: Workspace) -> None:
    write_agent(client, workspace, ".relavium/agents/summarizer.agent.yaml", agent("summarizer"))
    closed = workspace.write(".relavium/workflows/closed-sum.relavium.yaml",
                             workflow("summarizer"))
    # a $ref names the file: it follows the rename
    referencing = workspace.write(
        "flows/ref-sum.relavium.yaml",
        workflow("summarizer", agents="[{ $ref: ../.relavium/agents/summarizer.agent.yaml }]"))
    text = workflow("summarizer", "summarizer")
    uri = workspace.open(".relavium/workflows/open-sum.relavium.yaml", text)
    await client.diagnostics_for(uri)
    at = position(client, text, "agent_ref: summarizer", at=len("agent_ref: sum"))

    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=identifier(uri), position=at))
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "summarizer"

    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=identifier(uri), position=at, new_name="digest"))
    assert edit is not None
    texts = applied(client, edit)
    renames_files = client.profile == "vscode"  # Neovim's profile sends no documentChanges
    agent_name = "digest.agent.yaml" if renames_files else "summarizer.agent.yaml"
    assert (workspace.root / ".relavium/agents" / agent_name).read_text(
        encoding="utf-8") == agent("digest")
    assert texts[uri] == workflow("digest", "digest")
    assert closed.read_text(encoding="utf-8") == workflow("digest")
    ref = f"../.relavium/agents/{agent_name}"
    assert referencing.read_text(encoding="utf-8") == workflow(
        "digest", agents=f"[{{ $ref: {ref} }}]")
    # the project is consistent again: nothing unknown, nothing unresolved
    for renamed in (closed, referencing):
        opened = renamed.relative_to(workspace.root).as_posix()
        client.open(workspace.uri(opened), renamed.read_text(encoding="utf-8"))
        assert [d.code for d in await client.diagnostics_for(workspace.uri(opened))] == []


@pytest.mark.parametrize(("new_name", "message"), [
    ("Big_Agent", "'Big_Agent' is not a valid agent id: use kebab-case"),
    ("taken", "already defines 'taken'"),
])
async def test_an_agent_rename_the_engine_would_refuse_is_refused(
        client: RelaviumClient, workspace: Workspace, new_name: str, message: str) -> None:
    write_agent(client, workspace, ".relavium/agents/keeper.agent.yaml", agent("keeper"))
    write_agent(client, workspace, ".relavium/agents/taken.agent.yaml", agent("taken"))
    text = workflow("keeper")
    uri = workspace.open(f".relavium/workflows/refuse-{new_name}.relavium.yaml", text)
    await client.diagnostics_for(uri)
    with pytest.raises(JsonRpcException) as raised:
        await client.text_document_rename_async(types.RenameParams(
            text_document=identifier(uri),
            position=position(client, text, "agent_ref: keeper", at=len("agent_ref: k")),
            new_name=new_name))
    assert message in raised.value.message
    assert (workspace.root / ".relavium/agents/keeper.agent.yaml").read_text(
        encoding="utf-8") == agent("keeper")


async def test_an_inline_agent_is_renamed_in_its_workflow(
        client: RelaviumClient, workspace: Workspace) -> None:
    text = workflow("local", agents="[{ id: local, model: m, provider: anthropic, "
                                    "system_prompt: p }]")
    uri = workspace.open("inline-agent.relavium.yaml", text)
    await client.diagnostics_for(uri)
    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=identifier(uri), position=position(client, text, "id: local", at=5),
        new_name="nearby"))
    assert edit is not None
    assert applied(client, edit) == {uri: text.replace("local", "nearby")}
