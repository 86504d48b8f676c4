"""Diagnostics end to end: open, change, half-typed YAML, ignored files, push vs pull."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")


async def test_the_example_opens_clean(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("example.relavium.yaml", EXAMPLE)
    diagnostics = await client.diagnostics_for(uri)
    assert [d for d in diagnostics if d.severity == types.DiagnosticSeverity.Error] == []


async def test_half_typed_yaml_shows_only_the_syntax_error(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("broken.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)
    # an unclosed flow mapping half-way through the nodes list
    broken = EXAMPLE.replace("- { id: start, type: input, label: Ticket received }", "- { id: sta")
    client.replace_all(uri, broken)
    diagnostics = await client.diagnostics_for(uri)
    assert [d.code for d in diagnostics] == ["yaml-syntax"]
    (syntax,) = diagnostics
    assert syntax.source == "relavium-lsp"
    assert syntax.severity == types.DiagnosticSeverity.Error
    assert syntax.code_description is not None
    assert syntax.code_description.href.endswith("docs/rules.md#yaml-syntax")
    assert syntax.data == {"rule": "yaml-syntax", **(syntax.data or {})}


async def test_other_yaml_is_ignored(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("docker-compose.yaml", "services: {web: {image: [unclosed\n")
    if client.pull_mode:
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        assert list(report.items) == []
    else:
        # a workflow opened afterwards is answered, proving the server got past the ignored file
        marker = workspace.open("after-ignored.relavium.yaml", "schema_version: [\n")
        assert await client.diagnostics_for(marker)
        assert uri not in client.published


async def test_yaml_under_a_relavium_folder_is_checked(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open(".relavium/flow.yml", "schema_version: [\n")
    assert [d.code for d in await client.diagnostics_for(uri)] == ["yaml-syntax"]


async def test_each_diagnostics_mode_is_exclusive(
    client: RelaviumClient, workspace: Workspace
) -> None:
    """VS Code pulls and can be told to pull again; Neovim 0.11 pulls but cannot (no refresh
    support), so the server pushes to it — only push can re-diagnose after a settings change."""
    assert client.pull_mode == (client.profile == "vscode")
    uri = workspace.open("exclusive.relavium.yaml", "schema_version: [\n")
    await client.diagnostics_for(uri)
    await asyncio.sleep(0.2)
    if client.pull_mode:
        assert client.published == {}
    else:
        assert uri in client.published


def units(text: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf16:
        return len(text.encode("utf-16-le")) // 2
    return len(text)


async def test_columns_count_in_the_negotiated_encoding(
    client: RelaviumClient, workspace: Workspace
) -> None:
    """Emoji (two UTF-16 units, four UTF-8 bytes) and accents before the diagnostic."""
    assert client.encoding == (
        types.PositionEncodingKind.Utf8
        if client.profile == "neovim"
        else types.PositionEncodingKind.Utf16
    )
    line = '    - { id: start, type: input, label: "Tïcket 😀 réçu 🎫", colour: blue }'
    text = EXAMPLE.replace("    - { id: start, type: input, label: Ticket received }", line)
    uri = workspace.open("unicode.relavium.yaml", text)
    (diagnostic,) = await client.diagnostics_for(uri)
    assert diagnostic.code == "unknown-key"
    start = line.index("colour")
    assert diagnostic.range.start == types.Position(
        line=text.splitlines().index(line), character=units(line[:start], client.encoding)
    )
    assert diagnostic.range.end.character == units(line[: start + len("colour")], client.encoding)


async def test_a_position_inside_a_block_scalar_after_emoji(
    client: RelaviumClient, workspace: Workspace
) -> None:
    text = EXAMPLE.replace(
        '        run.outputs["classify"].severity >= (inputs.severity_floor ?? 7)\n',
        '        "🎫 é" === run.outputs["classify"].topic ** ?? 7\n',
    )
    uri = workspace.open("unicode-js.relavium.yaml", text)
    diagnostics = [d for d in await client.diagnostics_for(uri) if d.code == "js-syntax"]
    assert len(diagnostics) == 1, diagnostics
    line = '        "🎫 é" === run.outputs["classify"].topic ** ?? 7'
    assert diagnostics[0].range.start == types.Position(
        line=text.splitlines().index(line),
        character=units(line[: line.index("??")], client.encoding),
    )


async def test_a_repeated_pull_answers_unchanged(
    client: RelaviumClient, workspace: Workspace
) -> None:
    if not client.pull_mode:
        pytest.skip("only pull clients send result ids")
    uri = workspace.open("unchanged.relavium.yaml", "schema_version: [\n")
    params = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    first = await client.text_document_diagnostic_async(params)
    assert isinstance(first, types.RelatedFullDocumentDiagnosticReport) and first.result_id
    params.previous_result_id = first.result_id
    again = await client.text_document_diagnostic_async(params)
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    assert again.result_id == first.result_id
    client.replace_all(uri, EXAMPLE)
    changed = await client.text_document_diagnostic_async(params)
    assert isinstance(changed, types.RelatedFullDocumentDiagnosticReport)
    assert changed.result_id != first.result_id and list(changed.items) == []
