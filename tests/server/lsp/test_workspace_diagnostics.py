"""Start-up indexing and workspace diagnostics, over real stdio: the server indexes the workspace
after `initialized` with `window/workDoneProgress` (the same files `check` walks: excludes,
`.gitignore`, no link out), and with `relavium.diagnostics.scope: "workspace"` reports every
workflow and agent file — pulled (`workspace/diagnostic`) by VS Code, pushed to Neovim — while an
open document's diagnostics stay its own."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig

from server.lsp.document_uris import is_relavium_uri
from tests.analysis.large_workflow import large_workflow
from tests.server.conftest import SERVER_COMMAND, RelaviumClient, make_client, profile_capabilities
from tests.server.lsp.test_large_documents import LARGE
from tests.server.lsp.test_workspace_agents import AGENT, unknown_agents, workflow

WORKSPACE_SCOPE = {"relavium": {"debounceMs": 0, "diagnostics": {"scope": "workspace"}}}
OPEN_SCOPE = {"relavium": {"debounceMs": 0, "diagnostics": {"scope": "open"}}}
BROKEN_AGENT = "id: broken\nmodel: claude-sonnet-4\n"  # no provider, no system_prompt


def uri(path: Path) -> str:
    return str(from_fs_path(str(path)))


async def start(root: Path, profile: str, settings: dict[str, Any]) -> RelaviumClient:
    """A server on `root` (a `profile` client: "vscode" pulls, "neovim" is pushed to), whose
    editor watches files when it can."""
    client = await ClientServerConfig(SERVER_COMMAND, client_factory=make_client).start()
    assert isinstance(client, RelaviumClient)
    client.profile = profile
    client.root = root
    client.set_configuration(settings)
    converter = default_converter()
    raw: dict[str, Any] = converter.unstructure(profile_capabilities(profile))
    raw.setdefault("workspace", {})["didChangeWatchedFiles"] = {"dynamicRegistration": True}
    client.initialize_result = await client.initialize_session(types.InitializeParams(
        capabilities=converter.structure(raw, types.ClientCapabilities),
        initialization_options=settings,
        workspace_folders=[types.WorkspaceFolder(uri=uri(root), name="workspace")]))
    return client


def indexed_line(client: RelaviumClient) -> str | None:
    return next((m.message for m in client.log_messages if "relavium-lsp: indexed" in m.message),
                None)


async def indexed(client: RelaviumClient) -> str:
    return str(await client.wait_for(lambda: indexed_line(client), "the indexing log line"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project in the engine's layout with files `check` skips: excluded, ignored, linked out."""
    root = tmp_path / "ws"
    agents, flows = root / ".relavium" / "agents", root / ".relavium" / "workflows"
    agents.mkdir(parents=True)
    flows.mkdir()
    (agents / "helper.agent.yaml").write_text(AGENT.format(id="helper"), encoding="utf-8")
    (agents / "broken.agent.yaml").write_text(BROKEN_AGENT, encoding="utf-8")
    (flows / "clean.relavium.yaml").write_text(workflow("helper"), encoding="utf-8")
    (flows / "typo.relavium.yaml").write_text(workflow("helpr"), encoding="utf-8")
    (root / "drafts").mkdir()
    (root / "drafts" / "skip.relavium.yaml").write_text(workflow("nobody"), encoding="utf-8")
    (root / "relavium-lsp.toml").write_text('exclude = ["drafts/"]\n', encoding="utf-8")
    (root / "build").mkdir()
    (root / "build" / "gen.relavium.yaml").write_text(workflow("nobody"), encoding="utf-8")
    (root / ".gitignore").write_text("build/\n", encoding="utf-8")
    outside = tmp_path / "elsewhere.relavium.yaml"
    outside.write_text(workflow("nobody"), encoding="utf-8")
    os.symlink(outside, root / "linked.relavium.yaml")
    return root


def skipped_uris(root: Path) -> set[str]:
    return {uri(root / "drafts" / "skip.relavium.yaml"), uri(root / "build" / "gen.relavium.yaml"),
            uri(root / "linked.relavium.yaml")}


async def test_start_up_indexing_reports_progress_and_walks_as_check_does(project: Path) -> None:
    client = await start(project, "neovim", OPEN_SCOPE)
    try:
        line = await indexed(client)
        # two workflows and two agent files: the excluded, ignored and linked-out ones are not
        assert "indexed 2 workflows and 2 agent files" in line, line
        [(token, reports)] = [(token, reports) for token, reports in
                              client.progress_reports.items() if reports]
        assert isinstance(reports[0], types.WorkDoneProgressBegin)
        assert reports[0].title == "Relavium: indexing the workspace"
        assert any(isinstance(r, types.WorkDoneProgressReport) for r in reports[1:-1])
        assert isinstance(reports[-1], types.WorkDoneProgressEnd)
        assert str(token).startswith("relavium-indexing-")
        # the default scope is the open documents: nothing is said of the files not open
        await asyncio.sleep(1.0)
        assert [u for u in client.published if is_relavium_uri(u)] == []
    finally:
        await client.shutdown_session()


async def test_workspace_scope_pushes_every_file_and_hands_open_documents_to_their_session(
        project: Path) -> None:
    client = await start(project, "neovim", WORKSPACE_SCOPE)
    flows = project / ".relavium" / "workflows"
    typo, clean = uri(flows / "typo.relavium.yaml"), uri(flows / "clean.relavium.yaml")
    broken = uri(project / ".relavium" / "agents" / "broken.agent.yaml")
    try:
        await client.wait_for(lambda: {typo, clean, broken} <= set(client.published) or None,
                              "the workspace's files published")
        assert unknown_agents(client.published[typo][-1].diagnostics, workflow("helpr")) == [
            "helpr"]
        assert list(client.published[clean][-1].diagnostics) == []
        assert client.published[broken][-1].diagnostics, "an invalid agent file has errors"
        assert all(p.version is None for p in client.published[typo])  # from disk, not a buffer
        assert not skipped_uris(project) & set(client.published)

        # opened: the session's diagnostics, of its version; nothing from disk after them
        text = workflow("helpr", "helper")
        client.open(typo, text)
        diagnostics = await client.diagnostics_for(typo)
        assert unknown_agents(diagnostics, text) == ["helpr"]
        await asyncio.sleep(1.0)
        assert client.published[typo][-1].version == 1

        # closed: its disk diagnostics show again (after the session's are cleared)
        seen = len(client.published[typo])
        client.close(typo)
        await client.wait_for(lambda: len(client.published[typo]) >= seen + 2 or None,
                              "the disk diagnostics again")
        assert unknown_agents(client.published[typo][-1].diagnostics, workflow("helpr")) == [
            "helpr"]

        # deleted (watched): cleared
        (flows / "typo.relavium.yaml").unlink()
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=typo, type=types.FileChangeType.Deleted)]))
        await client.wait_for(lambda: not client.published[typo][-1].diagnostics or None,
                              "the deleted file's diagnostics cleared")

        # scope `open`: every file not open is cleared
        client.set_configuration(OPEN_SCOPE)
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings=None))
        await client.wait_for(lambda: not client.published[broken][-1].diagnostics or None,
                              "the other files cleared")
    finally:
        await client.shutdown_session()


async def workspace_pull(client: RelaviumClient, previous: dict[str, str]
                         ) -> dict[str, types.WorkspaceDocumentDiagnosticReport]:
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(
        previous_result_ids=[types.PreviousResultId(uri=u, value=v)
                             for u, v in previous.items()]))
    return {item.uri: item for item in report.items}


async def test_workspace_scope_pulled_with_unchanged_reports(project: Path) -> None:
    client = await start(project, "vscode", WORKSPACE_SCOPE)
    flows = project / ".relavium" / "workflows"
    typo, clean = uri(flows / "typo.relavium.yaml"), uri(flows / "clean.relavium.yaml")
    try:
        assert client.pull_mode
        provider = client.initialize_result.capabilities.diagnostic_provider  # type: ignore
        assert isinstance(provider, types.DiagnosticOptions) and provider.workspace_diagnostics
        first = await workspace_pull(client, {})
        assert {typo, clean} <= set(first) and not skipped_uris(project) & set(first)
        assert all(isinstance(r, types.WorkspaceFullDocumentDiagnosticReport)
                   for r in first.values())
        full = first[typo]
        assert isinstance(full, types.WorkspaceFullDocumentDiagnosticReport)
        assert unknown_agents(list(full.items), workflow("helpr")) == ["helpr"]
        ids = {u: r.result_id for u, r in first.items() if r.result_id is not None}
        assert ids.keys() == first.keys()

        again = await workspace_pull(client, ids)
        assert all(isinstance(r, types.WorkspaceUnchangedDocumentDiagnosticReport)
                   for r in again.values()), again

        # changed on disk (no watcher event: the pull looks at the files itself)
        (flows / "clean.relavium.yaml").write_text(workflow("gone"), encoding="utf-8")
        changed = await workspace_pull(client, ids)
        assert isinstance(changed[clean], types.WorkspaceFullDocumentDiagnosticReport)
        assert unknown_agents(list(changed[clean].items), workflow("gone")) == ["gone"]
        assert isinstance(changed[typo], types.WorkspaceUnchangedDocumentDiagnosticReport)

        # open: left out of the workspace report (the document pull reports it)
        client.open(typo, workflow("helpr"))
        assert unknown_agents(await client.diagnostics_for(typo), workflow("helpr")) == ["helpr"]
        assert typo not in await workspace_pull(client, {})
        # closed: the pull vscode-languageclient makes on close answers the disk diagnostics
        client.close(typo)
        closed = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=typo)))
        assert isinstance(closed, types.RelatedFullDocumentDiagnosticReport)
        assert unknown_agents(list(closed.items), workflow("helpr")) == ["helpr"]
        assert typo in await workspace_pull(client, {})

        # scope `open`: one report clearing every file, then none
        refreshes = client.diagnostic_refresh_count
        client.set_configuration(OPEN_SCOPE)
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings=None))
        await client.wait_for(lambda: client.diagnostic_refresh_count > refreshes or None,
                              "a refresh")
        cleared = await workspace_pull(client, ids)
        assert {typo, clean} <= set(cleared)
        assert all(isinstance(r, types.WorkspaceFullDocumentDiagnosticReport) and not r.items
                   for r in cleared.values())
        assert await workspace_pull(client, ids) == {}
    finally:
        await client.shutdown_session()


async def test_an_agent_edit_re_diagnoses_open_workflows_with_the_start_up_index(
        project: Path) -> None:
    client = await start(project, "neovim", OPEN_SCOPE)
    agent = project / ".relavium" / "agents" / "helper.agent.yaml"
    flow = uri(project / ".relavium" / "workflows" / "clean.relavium.yaml")
    try:
        await indexed(client)
        text = workflow("helper")
        client.open(flow, text)
        assert unknown_agents(await client.diagnostics_for(flow), text) == []
        client.open(uri(agent), AGENT.format(id="helper"))
        seen = len(client.published[flow])
        began = time.perf_counter()
        client.replace_all(uri(agent), AGENT.format(id="renamed"))
        await client.wait_for(lambda: any(
            unknown_agents(p.diagnostics, text) == ["helper"]
            for p in client.published[flow][seen:]) or None, "the workflow re-diagnosed")
        elapsed = time.perf_counter() - began
        # the keystroke budget: debounce (0 here) plus one analysis of each; 1 s on a loaded box
        assert elapsed < 1.0, f"{elapsed:.3f} s"
    finally:
        await client.shutdown_session()


async def test_open_documents_go_before_the_files_on_disk_and_a_large_one_is_diagnosed_too(
        tmp_path: Path) -> None:
    """Many files on disk are still being analysed when an open document's edit comes: its
    diagnostics do not wait for them. A large file on disk is diagnosed in the analysis
    process, as an open one is."""
    root = tmp_path / "many"
    root.mkdir()
    disk = [root / f"w{number:03}.relavium.yaml" for number in range(150)]
    for path in disk:
        path.write_text(large_workflow(3), encoding="utf-8")
    large = root / "large.relavium.yaml"
    large.write_text(LARGE, encoding="utf-8")
    client = await start(root, "neovim", WORKSPACE_SCOPE)
    disk_uris = {uri(path) for path in disk}
    try:
        await client.wait_for(lambda: disk_uris & set(client.published) or None,
                              "the first file on disk diagnosed")
        opened = uri(root / "open.relavium.yaml")
        (root / "open.relavium.yaml").write_text(workflow("writer"), encoding="utf-8")
        client.open(opened, workflow("writer"))
        await client.diagnostics_for(opened)
        version = client.replace_all(opened, workflow("writer", "nobody"))
        diagnostics = await client.diagnostics_for(opened)
        assert client.documents[opened].version == version
        assert unknown_agents(diagnostics, workflow("writer", "nobody")) == ["nobody"]
        done_by_then = len(disk_uris & set(client.published))
        assert done_by_then < len(disk_uris), "the disk files were all analysed first"

        large_uri = uri(large)
        await client.wait_for(lambda: client.published.get(large_uri) or None,
                              "the large file diagnosed")
        [report] = client.published[large_uri]
        assert [d.code for d in report.diagnostics] == ["invalid-value"]
    finally:
        await client.shutdown_session()


async def test_requests_are_answered_while_the_workspace_is_indexed(tmp_path: Path) -> None:
    """A document outside the project being indexed is diagnosed, and a hover answered, before
    the indexing of 1,500 agent files ends."""
    root = tmp_path / "big"
    agents = root / "project" / ".relavium" / "agents"
    agents.mkdir(parents=True)
    for number in range(1500):
        (agents / f"a{number:04}.agent.yaml").write_text(AGENT.format(id=f"a{number}"),
                                                         encoding="utf-8")
    (root / "loose").mkdir()
    client = await start(root, "neovim", OPEN_SCOPE)
    try:
        opened = uri(root / "loose" / "alone.relavium.yaml")
        text = workflow("writer", "nobody")
        client.open(opened, text)
        assert unknown_agents(await client.diagnostics_for(opened), text) == ["nobody"]
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=opened),
            position=types.Position(line=1, character=2)))
        answered_before = indexed_line(client) is None
        line = await indexed(client)
        assert "1,500 agent files" in line
        assert hover is not None
        assert answered_before, f"answered only after the indexing ({line})"
    finally:
        await client.shutdown_session()


async def test_a_folder_added_to_the_workspace_is_listed_and_diagnosed(
        project: Path, tmp_path: Path) -> None:
    added = tmp_path / "added"
    added.mkdir()
    (added / "more.relavium.yaml").write_text(workflow("nobody"), encoding="utf-8")
    more = uri(added / "more.relavium.yaml")
    client = await start(project, "neovim", WORKSPACE_SCOPE)
    try:
        await indexed(client)
        assert more not in client.published
        client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=uri(added), name="added")], removed=[])))
        await client.wait_for(lambda: client.published.get(more) or None, "the added folder")
        assert unknown_agents(client.published[more][-1].diagnostics, workflow("nobody")) == [
            "nobody"]
        client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[], removed=[types.WorkspaceFolder(uri=uri(added), name="added")])))
        await client.wait_for(lambda: not client.published[more][-1].diagnostics or None,
                              "the removed folder's file cleared")
    finally:
        await client.shutdown_session()


async def test_files_created_and_agents_changed_on_disk_reach_the_files_not_open(
        project: Path) -> None:
    client = await start(project, "neovim", WORKSPACE_SCOPE)
    flows = project / ".relavium" / "workflows"
    clean = uri(flows / "clean.relavium.yaml")
    try:
        await client.wait_for(lambda: client.published.get(clean) or None, "the first pass")
        assert list(client.published[clean][-1].diagnostics) == []

        # an agent renamed on disk: the closed workflow that used it now names no agent
        agent = project / ".relavium" / "agents" / "helper.agent.yaml"
        agent.write_text(AGENT.format(id="renamed"), encoding="utf-8")
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(agent), type=types.FileChangeType.Changed)]))
        await client.wait_for(lambda: unknown_agents(client.published[clean][-1].diagnostics,
                                                     workflow("helper")) == ["helper"] or None,
                              "the closed workflow re-diagnosed")

        # a workflow created: listed and diagnosed
        created = flows / "new.relavium.yaml"
        created.write_text(workflow("renamed", "ghost"), encoding="utf-8")
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(created), type=types.FileChangeType.Created)]))
        await client.wait_for(lambda: client.published.get(uri(created)) or None,
                              "the created file diagnosed")
        assert unknown_agents(client.published[uri(created)][-1].diagnostics,
                              workflow("renamed", "ghost")) == ["ghost"]
    finally:
        await client.shutdown_session()
