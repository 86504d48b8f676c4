"""`relavium.status`: what a health check asks the server (version, settings, project
configuration, the document), and Lua's empty table as an empty mapping over the wire. A real
server over stdio, started in a workspace folder that holds a configuration file."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig

from tests.conftest import FINDINGS_WORKFLOW
from tests.server.conftest import RelaviumClient, make_client, profile_capabilities

pytestmark = pytest.mark.asyncio(loop_scope="module")

PYPROJECT = (
    '[tool.relavium-lsp]\nextend-exclude = ["drafts/"]\n'
    '[tool.relavium-lsp.rules]\nunknown-key = "off"\nunreachable-node = "error"\n'
)
# As Neovim sends `settings = { relavium = { rules = {} } }` beside the section's other keys:
# Lua's empty table is a JSON array.
EDITOR: dict[str, Any] = {"relavium": {"debounceMs": 0, "rules": []}}
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "server", "serve", "--stdio"],
                            client_factory=make_client)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("status")
    (folder / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (folder / "drafts").mkdir()
    return folder


@pytest_lsp.fixture(config=SERVER, scope="module")
async def neovim(lsp_client: RelaviumClient, root: Path) -> AsyncIterator[None]:
    lsp_client.set_configuration(EDITOR)
    folder = str(from_fs_path(str(root)))
    lsp_client.initialize_result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=profile_capabilities("neovim"),
        initialization_options={"relavium": {"rules": []}},
        root_uri=folder,
        workspace_folders=[types.WorkspaceFolder(uri=folder, name="w")],
    ))
    await settled(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def status(client: RelaviumClient, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="relavium.status", arguments=list(arguments)))


async def settled(client: RelaviumClient) -> None:
    """Until the server has the configuration answer (EDITOR's debounceMs) and the project file."""
    async def probe() -> bool:
        answer = await status(client)
        return answer["editorSettings"]["debounceMs"] == 0 and (
            answer["project"] is None or "error" not in answer["project"]
            or answer["project"]["error"] is not None)
    deadline = asyncio.get_running_loop().time() + 20
    while not await probe():
        assert asyncio.get_running_loop().time() < deadline, "the server never settled"
        await asyncio.sleep(0.05)


async def test_an_empty_lua_table_is_an_empty_mapping_without_a_warning(
    neovim: RelaviumClient, root: Path
) -> None:
    uri = str(from_fs_path(str(root / "w.relavium.yaml")))
    neovim.open(uri, FINDINGS_WORKFLOW)
    # the file's levels apply, the editor sets none: unknown-key off, unreachable-node an error
    found = [(str(d.code), d.severity) for d in await neovim.diagnostics_for(uri)]
    assert found == [("unreachable-node", types.DiagnosticSeverity.Error)]
    answer = await status(neovim, {"uri": uri})
    assert answer["settingsProblems"] == []
    assert not [m for m in neovim.messages if m.type == types.MessageType.Warning]
    neovim.close(uri)


async def test_status_reports_version_settings_project_and_document(
    neovim: RelaviumClient, root: Path
) -> None:
    draft = str(from_fs_path(str(root / "drafts" / "d.relavium.yaml")))
    neovim.open(draft, FINDINGS_WORKFLOW)
    answer = await status(neovim, {"uri": draft})
    assert answer["version"] == version("relavium-lsp")
    assert answer["editorSettings"] == {"debounceMs": 0, "rules": {}, "sampleScope": None,
                                        "diagnostics": {"scope": "open"}}
    assert answer["settings"] == {
        "debounceMs": 0,
        "rules": {"unknown-key": "off", "unreachable-node": "error"},
        "sampleScope": None,
        "diagnostics": {"scope": "open"},
    }
    project = answer["project"]
    assert project["path"] == str(root / "pyproject.toml")
    assert project["root"] == str(root)
    assert project["extendExclude"] == ["drafts/"]
    assert project["rules"] == {"unknown-key": "off", "unreachable-node": "error"}
    assert answer["document"] == {"uri": draft, "kind": "workflow", "open": True, "excluded": True}
    neovim.close(draft)
    # no document named: the server's own state only; an agent file is told apart
    assert "document" not in await status(neovim)
    agent = str(from_fs_path(str(root / "summarizer.agent.yaml")))
    assert (await status(neovim, {"uri": agent}))["document"] == {
        "uri": agent, "kind": "agent", "open": False, "excluded": False}


async def test_invalid_settings_are_in_the_status_as_they_were_warned(
    neovim: RelaviumClient,
) -> None:
    neovim.set_configuration({"relavium": {"debounceMs": 0, "rules": ["cycle"]}})
    neovim.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    problems = await neovim.wait_for(
        lambda: [m.message for m in neovim.messages if "relavium.rules" in m.message] or None,
        "a warning")
    answer = await status(neovim)
    assert len(answer["settingsProblems"]) == 1
    assert answer["settingsProblems"][0].startswith("relavium.rules must map rule ids")
    assert answer["settingsProblems"][0] in problems[-1]


@pytest.fixture(scope="module")
def broken_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("broken")
    (folder / "relavium-lsp.toml").write_text('rules = { unknown-key = "loud" }\n', "utf-8")
    return folder


@pytest_lsp.fixture(config=SERVER, scope="module")
async def broken(lsp_client: RelaviumClient, broken_root: Path) -> AsyncIterator[None]:
    lsp_client.set_configuration(EDITOR)
    lsp_client.initialize_result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=profile_capabilities("neovim"),
        root_uri=str(from_fs_path(str(broken_root))),
    ))
    await settled(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_a_configuration_file_that_does_not_load_is_named_with_its_error(
    broken: RelaviumClient, broken_root: Path
) -> None:
    project = (await status(broken))["project"]
    assert project["path"] == str(broken_root / "relavium-lsp.toml")
    assert "rules.unknown-key must be one of" in project["error"]
    # the server uses its defaults meanwhile
    assert (await status(broken))["settings"]["rules"] == {}
