"""Bad requests never break the server: unknown and closed documents, out-of-range edits,
edits racing each other, bad command arguments."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
NOWHERE = "file:///nowhere/never-opened.relavium.yaml"


def document(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def whole_line(line: int) -> types.Range:
    return types.Range(
        start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)
    )


async def assert_answers_empty(client: RelaviumClient, uri: str) -> None:
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=document(uri))
    )
    assert not lenses
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=document(uri),
            range=whole_line(0),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert not actions
    if client.pull_mode:
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=document(uri))
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        assert list(report.items) == []


async def test_unknown_documents_answer_empty(client: RelaviumClient) -> None:
    await assert_answers_empty(client, NOWHERE)


async def test_closed_documents_answer_empty_and_are_cleared(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("closed.relavium.yaml", "schema_version: [\n")
    assert await client.diagnostics_for(uri)
    client.close(uri)
    if not client.pull_mode:
        await client.wait_for(
            lambda: not client.published[uri][-1].diagnostics, "cleared diagnostics"
        )
    await assert_answers_empty(client, uri)


async def test_a_change_to_an_unopened_document_is_ignored(client: RelaviumClient) -> None:
    shown = len(client.messages)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=NOWHERE, version=7),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="x: [")],
        )
    )
    await assert_answers_empty(client, NOWHERE)
    await client.wait_for(
        lambda: any(NOWHERE in m.message for m in client.log_messages), "the warning"
    )
    assert client.messages[shown:] == []


async def test_out_of_range_edits_are_clamped(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("out-of-range.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)
    past_the_end = types.Range(
        start=types.Position(line=5000, character=3), end=types.Position(line=9000, character=0)
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(range=past_the_end, text="bogus: [\n")
            ],
        )
    )
    client.documents[uri].version = 2
    diagnostics = await client.diagnostics_for(uri)
    # the text went to the end of the document, where it breaks the YAML
    assert [d.code for d in diagnostics] == ["yaml-syntax"]
    assert diagnostics[0].range.start.line >= EXAMPLE.count("\n")
    warnings = [m.message for m in client.log_messages if "out-of-range" in m.message]
    assert any(uri in message for message in warnings)


async def test_a_burst_of_edits_ends_with_the_last_version(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("burst.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)
    # type "colour: blue" into the start node one character at a time
    line = EXAMPLE.splitlines().index("    - { id: start, type: input, label: Ticket received }")
    column = len("    - { id: start, type: input, label: Ticket received")
    for offset, char in enumerate(", colour: blue"):
        at = types.Position(line=line, character=column + offset)
        client.change(
            uri,
            types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text=char),
        )
    diagnostics = await client.diagnostics_for(uri)
    assert [d.code for d in diagnostics] == ["unknown-key"]
    assert "colour" in diagnostics[0].message
    if not client.pull_mode:
        # every publish carries the version it was computed for, and the newest is last
        versions = [p.version for p in client.published[uri]]
        assert versions == sorted(versions)
        assert versions[-1] == client.documents[uri].version


@pytest.mark.parametrize(
    "arguments",
    [[], ["not an object"], [{"uri": 3, "node": "route"}], [{"uri": NOWHERE}]],
)
async def test_bad_command_arguments_answer_with_a_message(
    client: RelaviumClient, arguments: list[object]
) -> None:
    for command in ("relavium.runWithSampleScope", "relavium.createSampleScope"):
        shown = len(client.messages)
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=arguments)
        )
        assert isinstance(result, dict) and result.get("ok", result.get("created")) is False
        assert len(client.messages) == shown + 1
        assert client.messages[-1].type == types.MessageType.Error
