"""Settings over the protocol: rule severities and switches, debounce, invalid values."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import INITIAL_SETTINGS, RelaviumClient, Workspace

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
WITH_UNKNOWN_KEY = EXAMPLE.replace(
    "label: Ticket received }", "label: Ticket received, colour: blue }"
)


async def configure(client: RelaviumClient, section: dict[str, object]) -> None:
    """Change the client's settings and tell the server, which fetches them."""
    client.set_configuration({"relavium": section})
    generation = len(client.messages)
    answers = len(client.configuration_answers)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await client.wait_for(lambda: len(client.configuration_answers) > answers, "the fetch")
    # a round trip the server answers after handling the notification
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="relavium.createSampleScope", arguments=[])
    )
    del client.messages[generation:]  # that probe's own error message
    if client.pull_mode:
        # applied once the server asks to pull again after the answer (earlier refreshes, such
        # as the project configuration's, may predate the new settings)
        before = client.configuration_answers[answers]
        await client.wait_for(
            lambda: client.diagnostic_refresh_count > before, "workspace/diagnostic/refresh"
        )


@pytest_asyncio.fixture(loop_scope="module")
async def restore_settings(client: RelaviumClient) -> AsyncIterator[None]:
    yield
    await configure(client, dict(INITIAL_SETTINGS["relavium"]))


async def unknown_key_severity(client: RelaviumClient, uri: str) -> types.DiagnosticSeverity | None:
    if client.pull_mode:
        diagnostics = await client.diagnostics_for(uri)
    else:
        await asyncio.sleep(0.3)  # the server re-publishes after a settings change
        diagnostics = list(client.published[uri][-1].diagnostics)
    found = [d.severity for d in diagnostics if d.code == "unknown-key"]
    return found[0] if found else None


async def test_rule_severity_and_off(
    client: RelaviumClient, workspace: Workspace, restore_settings: None
) -> None:
    uri = workspace.open("severity.relavium.yaml", WITH_UNKNOWN_KEY)
    await client.diagnostics_for(uri)
    assert await unknown_key_severity(client, uri) == types.DiagnosticSeverity.Error
    await configure(client, {"debounceMs": 0, "rules": {"unknown-key": "hint"}})
    assert await unknown_key_severity(client, uri) == types.DiagnosticSeverity.Hint
    await configure(client, {"debounceMs": 0, "rules": {"unknown-key": "off"}})
    assert await unknown_key_severity(client, uri) is None


async def test_invalid_settings_fall_back_with_a_message(
    client: RelaviumClient, workspace: Workspace, restore_settings: None
) -> None:
    client.set_configuration({"relavium": {"debounceMs": "soon", "rules": {"cycle": "loud"}}})
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    def warned_about(field: str) -> bool:
        return any(
            m.type == types.MessageType.Warning and m.message.count(field)
            for m in client.messages
        )

    await client.wait_for(
        lambda: warned_about("relavium.debounceMs") and warned_about("relavium.rules.cycle"),
        "a warning per invalid setting",
    )
    # the server still works, with the default severity for the rule it could not read
    uri = workspace.open("after-invalid.relavium.yaml", WITH_UNKNOWN_KEY)
    assert [d.code for d in await client.diagnostics_for(uri)] == ["unknown-key"]


async def test_debounce_delays_until_save(
    client: RelaviumClient, workspace: Workspace, restore_settings: None
) -> None:
    if client.pull_mode:
        pytest.skip("a pull client asks when it wants; debounce only paces pushed diagnostics")
    await configure(client, {"debounceMs": 10_000})
    uri = workspace.open("debounce.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)  # opening is never debounced
    version = client.replace_all(uri, WITH_UNKNOWN_KEY)
    await asyncio.sleep(0.5)
    assert [p.version for p in client.published[uri]] == [1]
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    diagnostics = await client.diagnostics_for(uri)
    assert client.published[uri][-1].version == version
    assert [d.code for d in diagnostics] == ["unknown-key"]
