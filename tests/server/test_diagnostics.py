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
    """Neovim 0.11 pulls, VS Code 1.65 has no pull support: the server pushes only to it."""
    assert client.pull_mode == (client.profile == "neovim")
    uri = workspace.open("exclusive.relavium.yaml", "schema_version: [\n")
    await client.diagnostics_for(uri)
    await asyncio.sleep(0.2)
    if client.pull_mode:
        assert client.published == {}
    else:
        assert uri in client.published
