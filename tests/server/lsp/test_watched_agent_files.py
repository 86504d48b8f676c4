"""Agent files changed on disk, over real stdio: a client that can register file watchers is
asked to watch agent files, and a change it reports re-diagnoses the open workflows that
resolve them; one that cannot is asked nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig

from tests.server.conftest import (
    INITIAL_SETTINGS,
    SERVER_COMMAND,
    RelaviumClient,
    make_client,
    profile_capabilities,
)
from tests.server.lsp.test_workspace_agents import AGENT, next_diagnostics, unknown_agents, workflow


async def start(root: Path, watching: bool) -> tuple[RelaviumClient, list[types.Registration]]:
    client = await ClientServerConfig(SERVER_COMMAND, client_factory=make_client).start()
    assert isinstance(client, RelaviumClient)
    client.profile = "neovim"  # pushed diagnostics
    client.root = root
    client.set_configuration(INITIAL_SETTINGS)
    converter = default_converter()
    raw: dict[str, Any] = converter.unstructure(profile_capabilities("neovim"))
    raw.setdefault("workspace", {})["didChangeWatchedFiles"] = {"dynamicRegistration": watching}
    client.initialize_result = await client.initialize_session(types.InitializeParams(
        capabilities=converter.structure(raw, types.ClientCapabilities),
        initialization_options=INITIAL_SETTINGS,
        workspace_folders=[types.WorkspaceFolder(uri=str(from_fs_path(str(root))),
                                                 name="workspace")]))
    return client, client.registrations


@pytest.fixture
async def project(tmp_path: Path) -> AsyncIterator[Path]:
    (tmp_path / ".relavium" / "agents").mkdir(parents=True)
    (tmp_path / ".relavium" / "workflows").mkdir()
    yield tmp_path


async def test_a_watched_agent_file_changed_on_disk_re_diagnoses_its_workflows(
        project: Path) -> None:
    client, registrations = await start(project, watching=True)
    try:
        await client.wait_for(lambda: registrations or None, "the watcher registration")
        [registration] = registrations
        assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        options = default_converter().structure(registration.register_options,
                                                types.DidChangeWatchedFilesRegistrationOptions)
        assert [w.glob_pattern for w in options.watchers] == [
            "**/.relavium/**/*.{yaml,yml}", "**/*.agent.{yaml,yml}", "**/*.relavium.{yaml,yml}"]

        agent = project / ".relavium" / "agents" / "drafts.agent.yaml"
        agent.write_text(AGENT.format(id="drafter"), encoding="utf-8")
        text = workflow("drafter")
        uri = str(from_fs_path(str(project / ".relavium" / "workflows" / "w.relavium.yaml")))
        client.open(uri, text)
        assert unknown_agents(await client.diagnostics_for(uri), text) == []

        seen = len(client.published.get(uri, []))
        agent.write_text(AGENT.format(id="renamed"), encoding="utf-8")
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=str(from_fs_path(str(agent))),
                            type=types.FileChangeType.Changed)]))
        assert unknown_agents(await next_diagnostics(client, uri, seen), text) == ["drafter"]

        seen = len(client.published.get(uri, []))
        agent.unlink()
        new = project / ".relavium" / "agents" / "drafter.yaml"
        new.write_text(AGENT.format(id="drafter"), encoding="utf-8")
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=str(from_fs_path(str(agent))), type=types.FileChangeType.Deleted),
            types.FileEvent(uri=str(from_fs_path(str(new))), type=types.FileChangeType.Created),
        ]))
        assert unknown_agents(await next_diagnostics(client, uri, seen), text) == []
    finally:
        await client.shutdown_session()


async def test_without_watching_opening_a_document_reads_the_disk_again(project: Path) -> None:
    client, registrations = await start(project, watching=False)
    try:
        text = workflow("writer", "later")
        uri = str(from_fs_path(str(project / ".relavium" / "workflows" / "w.relavium.yaml")))
        client.open(uri, text)
        assert unknown_agents(await client.diagnostics_for(uri), text) == ["later"]
        assert registrations == []  # initialized is handled by now: nothing was asked

        seen = len(client.published.get(uri, []))
        (project / ".relavium" / "agents" / "later.yaml").write_text(
            AGENT.format(id="later"), encoding="utf-8")
        other = str(from_fs_path(str(project / ".relavium" / "workflows" / "o.relavium.yaml")))
        client.open(other, workflow("writer"))
        assert unknown_agents(await next_diagnostics(client, uri, seen), text) == []
    finally:
        await client.shutdown_session()
