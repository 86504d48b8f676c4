"""Typed completion, hover and signature help end to end over stdio: the members of a node's
output with their types, the type of a read and where it comes from, and what each
`branches[i]` of a merge_fn holds — from the last good model while the text is half-typed,
with UTF-16 ranges."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.analysis.ide.typed_workflow import TYPED
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier, position, spanned

pytestmark = pytest.mark.asyncio(loop_scope="module")

REPORT = "transform: 'run.outputs[\"classify\"].labels[0].name'"
MERGE_FN = "merge_fn: '[branches[0].size, branches[1].note]'"


async def typed(client: RelaviumClient, workspace: Workspace, name: str, old: str,
                new: str) -> tuple[str, str]:
    """Open the workflow, then type `new` in place of `old` (the model stays the last good)."""
    uri = workspace.open(name, TYPED)
    await client.diagnostics_for(uri)
    text = TYPED.replace(old, new, 1)
    client.replace_all(uri, text)
    return uri, text


async def complete(client: RelaviumClient, uri: str, text: str, needle: str
                   ) -> list[types.CompletionItem]:
    found = await client.text_document_completion_async(types.CompletionParams(
        text_document=identifier(uri), position=position(client, text, needle, 0, len(needle))))
    assert isinstance(found, types.CompletionList)
    return sorted(found.items, key=lambda item: item.sort_text or "")


async def test_completion_lists_schema_properties_with_their_types(
    client: RelaviumClient, workspace: Workspace
) -> None:
    needle = "/* 🎫 */ run.outputs[\"classify\"].tic"
    uri, text = await typed(client, workspace, "typed-complete.relavium.yaml", REPORT,
                            f"transform: '{needle}")
    items = await complete(client, uri, text, needle)
    assert [(item.label, item.detail) for item in items] == [
        ("severity", '"low" | "high"'), ("topic", "string (optional)"),
        ("ticket-id", "number (optional)"),
        ("labels", "{ name?: string; score?: number; [key: string]: unknown }[]"),
    ]
    assert all(item.kind == types.CompletionItemKind.Method for item in items)
    # the schema's description is the item's documentation
    assert items[1].documentation == types.MarkupContent(
        kind=types.MarkupKind.Markdown, value="What the ticket is about")
    assert items[0].documentation is None
    ticket = items[2]
    assert isinstance(ticket.text_edit, types.TextEdit)
    # a `-` name is written in the bracket form, from the dot on (UTF-16 range past the emoji)
    assert ticket.text_edit.new_text == '["ticket-id"]'
    assert spanned(client, text, ticket.text_edit.range) == ".tic"


async def test_template_completion(client: RelaviumClient, workspace: Workspace) -> None:
    needle = '{{ run.outputs["classify"].labels[0].'
    uri, text = await typed(client, workspace, "typed-template.relavium.yaml",
                            '{{ run.outputs["classify"].topic }}', needle)
    items = await complete(client, uri, text, needle)
    assert [(item.label, item.detail) for item in items] == [
        ("name", "string (optional)"), ("score", "number (optional)")]


async def hover(client: RelaviumClient, uri: str, text: str, needle: str
                ) -> tuple[str, str | None]:
    found = await client.text_document_hover_async(types.HoverParams(
        text_document=identifier(uri), position=position(client, text, needle, 0,
                                                         len(needle) - 1)))
    if found is None:
        return "", None
    assert isinstance(found.contents, types.MarkupContent)
    covered = spanned(client, text, found.range) if found.range is not None else None
    return found.contents.value, covered


async def test_hover_shows_a_reads_type_and_its_origin(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("typed-hover.relavium.yaml", TYPED)
    await client.diagnostics_for(uri)
    assert await hover(client, uri, TYPED, "labels[0].na") == (
        "`name: string | undefined` — classify's output_schema", "name")
    assert await hover(client, uri, TYPED, "branches[0].si") == (
        "`size: number` — branch 0, inferred from left's transform", "size")
    text, covered = await hover(client, uri, TYPED, '{{ run.outputs["classify"].top')
    assert (text, covered) == ("`topic: string | undefined` — classify's output_schema",
                               "topic")


async def signature_help(client: RelaviumClient, uri: str, text: str, needle: str
                         ) -> types.SignatureHelp | None:
    return await client.text_document_signature_help_async(types.SignatureHelpParams(
        text_document=identifier(uri), position=position(client, text, needle, 0, len(needle)),
        context=types.SignatureHelpContext(
            trigger_kind=types.SignatureHelpTriggerKind.TriggerCharacter, trigger_character="[",
            is_retrigger=False)))


async def test_signature_help_names_each_branch(
    client: RelaviumClient, workspace: Workspace
) -> None:
    assert client.initialize_result is not None
    provider = client.initialize_result.capabilities.signature_help_provider
    assert provider is not None and list(provider.trigger_characters or ()) == ["["]
    uri, text = await typed(client, workspace, "typed-branches.relavium.yaml", MERGE_FN,
                            "merge_fn: '[branches[0].size, branches[1")
    found = await signature_help(client, uri, text, "branches[1")
    assert found is not None
    assert [signature.label for signature in found.signatures] == [
        "branches[0]: { size: number }",
        "branches[1]: { note: string }",
    ]
    assert found.active_signature == 1
    documentation = found.signatures[1].documentation
    assert isinstance(documentation, types.MarkupContent)
    assert documentation.value == "the output of `right` — inferred from right's transform"
    # nothing inside a string, nor outside a merge_fn
    uri, text = await typed(client, workspace, "typed-branches-quiet.relavium.yaml", MERGE_FN,
                            "merge_fn: '\"branches[")
    assert await signature_help(client, uri, text, '"branches[') is None
    assert await signature_help(client, uri, text, "transform: 'run.outputs[") is None
