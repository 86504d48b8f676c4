"""The user's settings hold from the first diagnostics on, and a change re-diagnoses every open
document, for push clients (Neovim 0.11) and pull clients with refresh support (VS Code).

Each test starts its own server: what is under test is the start of a session, with a client
that answers `workspace/configuration` late, never, or with an error."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig

from server.lsp.language_server import SETTINGS_WAIT_SECONDS
from tests.conftest import REPO_ROOT
from tests.server.conftest import (
    SERVER_COMMAND,
    WAIT_SECONDS,
    RelaviumClient,
    make_client,
    profile_capabilities,
)

pytestmark = pytest.mark.asyncio

UNREACHABLE = (
    REPO_ROOT / "tests" / "fixtures" / "rules" / "unreachable-node" / "positive.relavium.yaml"
).read_text(encoding="utf-8")
RULE_OFF = {"relavium": {"debounceMs": 0, "rules": {"unreachable-node": "off"}}}

Answer = Callable[[RelaviumClient, types.ConfigurationParams], Awaitable[Any]]


def delayed(seconds: float, settings: dict[str, Any]) -> Answer:
    async def answer(client: RelaviumClient, params: types.ConfigurationParams) -> Any:
        await asyncio.sleep(seconds)
        return [settings.get(item.section or "") for item in params.items]

    return answer


async def never(client: RelaviumClient, params: types.ConfigurationParams) -> Any:
    await asyncio.Event().wait()


async def refuse(client: RelaviumClient, params: types.ConfigurationParams) -> Any:
    raise RuntimeError("no configuration here")


async def start(profile: str, answer: Answer) -> RelaviumClient:
    def factory() -> RelaviumClient:
        return make_client({types.WORKSPACE_CONFIGURATION: answer})

    client = await ClientServerConfig(SERVER_COMMAND, client_factory=factory).start()
    assert isinstance(client, RelaviumClient)
    client.profile = profile
    # as Neovim's vim.lsp.config `settings`: nothing in initializationOptions
    client.initialize_result = await client.initialize_session(
        types.InitializeParams(capabilities=profile_capabilities(profile))
    )
    return client


@pytest.fixture
async def sessions() -> AsyncIterator[list[RelaviumClient]]:
    started: list[RelaviumClient] = []
    yield started
    for client in started:
        await client.shutdown_session()


def open_workflow(client: RelaviumClient, folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    uri = str(from_fs_path(str(path)))
    client.open(uri, text)
    return uri


def first_codes(client: RelaviumClient, uri: str) -> Awaitable[list[Any]]:
    async def codes() -> list[Any]:
        if client.pull_mode:
            return [d.code for d in await client.diagnostics_for(uri)]
        first = await client.wait_for(lambda: client.published.get(uri), f"diagnostics of {uri}")
        return [d.code for d in first[0].diagnostics]

    return codes()


@pytest.mark.parametrize("profile", ["neovim", "vscode"])
async def test_the_first_diagnostics_wait_for_a_late_configuration_answer(
    profile: str, sessions: list[RelaviumClient], tmp_path: Path
) -> None:
    client = await start(profile, delayed(0.5, RULE_OFF))
    sessions.append(client)
    assert client.pull_mode == (profile == "vscode")
    uri = open_workflow(client, tmp_path, "late.relavium.yaml", UNREACHABLE)
    assert await first_codes(client, uri) == []


@pytest.mark.parametrize("profile", ["neovim", "vscode"])
async def test_a_client_that_never_answers_still_gets_diagnostics(
    profile: str, sessions: list[RelaviumClient], tmp_path: Path
) -> None:
    client = await start(profile, never)
    sessions.append(client)
    uri = open_workflow(client, tmp_path, "never.relavium.yaml", UNREACHABLE)
    started = asyncio.get_running_loop().time()
    assert await first_codes(client, uri) == ["unreachable-node"]
    # bounded: the defaults apply once the wait is over, not before
    assert asyncio.get_running_loop().time() - started >= SETTINGS_WAIT_SECONDS / 2
    assert any("workspace/configuration" in m.message for m in client.log_messages)


async def test_a_failed_configuration_request_falls_back_to_defaults(
    sessions: list[RelaviumClient], tmp_path: Path
) -> None:
    client = await start("neovim", refuse)
    sessions.append(client)
    uri = open_workflow(client, tmp_path, "refused.relavium.yaml", UNREACHABLE)
    assert await first_codes(client, uri) == ["unreachable-node"]
    assert any("workspace/configuration failed" in m.message for m in client.log_messages)


@pytest.mark.parametrize("profile", ["neovim", "vscode"])
async def test_a_settings_change_rediagnoses_every_open_document(
    profile: str, sessions: list[RelaviumClient], tmp_path: Path
) -> None:
    settings: dict[str, Any] = {"relavium": {"debounceMs": 0}}
    client = await start(profile, delayed(0, settings))
    sessions.append(client)
    # Neovim 0.11 pulls only after an edit (no refresh support): it must be pushed to
    assert client.pull_mode == (profile == "vscode")
    uris = [
        open_workflow(client, tmp_path, f"{name}.relavium.yaml", UNREACHABLE)
        for name in ("one", "two")
    ]
    for uri in uris:
        assert await first_codes(client, uri) == ["unreachable-node"]
    refreshes = client.diagnostic_refresh_count
    settings.update(RULE_OFF)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    if client.pull_mode:
        await client.wait_for(
            lambda: client.diagnostic_refresh_count > refreshes, "workspace/diagnostic/refresh"
        )
    # pushed again, or pulled again after the refresh, with no edit in between
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    for uri in uris:
        while not await latest_is_clean(client, uri):
            assert loop.time() < deadline, f"{uri} still has {client.published.get(uri)}"
            await asyncio.sleep(0.05)


async def latest_is_clean(client: RelaviumClient, uri: str) -> bool:
    if client.pull_mode:
        return await client.diagnostics_for(uri) == []
    return list(client.published[uri][-1].diagnostics) == []
