"""Every navigation request at positions all over a document (including past line ends and the
end of the file, on whole and on half-typed YAML) answers without an error."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8").replace(
    "Ticket received", "Ticket 😀 reçu"
)


def positions(text: str) -> list[types.Position]:
    lines = text.split("\n")
    found = [types.Position(line=len(lines) + 3, character=0)]
    for number in range(0, len(lines), 2):
        width = len(lines[number])
        found.extend(types.Position(line=number, character=character)
                     for character in (0, width // 2, width, width + 7))
    return found


async def ask_everything(client: RelaviumClient, uri: str, at: types.Position) -> None:
    document = identifier(uri)
    await client.text_document_hover_async(types.HoverParams(text_document=document, position=at))
    await client.text_document_definition_async(
        types.DefinitionParams(text_document=document, position=at)
    )
    await client.text_document_references_async(types.ReferenceParams(
        text_document=document, position=at,
        context=types.ReferenceContext(include_declaration=True),
    ))
    completion = await client.text_document_completion_async(
        types.CompletionParams(text_document=document, position=at)
    )
    assert isinstance(completion, types.CompletionList)
    try:
        await client.text_document_prepare_rename_async(
            types.PrepareRenameParams(text_document=document, position=at)
        )
    except Exception as refused:  # a refusal is an answer; it must say why
        assert "rename" in str(refused) or "node" in str(refused), refused


@pytest.mark.parametrize("half_typed", [False, True])
async def test_requests_anywhere(client: RelaviumClient, workspace: Workspace,
                                 half_typed: bool) -> None:
    uri = workspace.open(f"anywhere-{half_typed}.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)
    text = EXAMPLE
    if half_typed:
        text = EXAMPLE.replace("    - { id: enrich,", "    - { id: enr\n    - { id: enrich,")
        client.replace_all(uri, text)
        assert [d.code for d in await client.diagnostics_for(uri)] == ["yaml-syntax"]
    for at in positions(text):
        await ask_everything(client, uri, at)
    tokens = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=identifier(uri))
    )
    assert tokens is not None and len(tokens.data) % 5 == 0 and tokens.data
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=identifier(uri))
    )
    assert symbols
    folds = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=identifier(uri))
    )
    assert folds
    # the server logged no handler failure
    assert not [m for m in client.log_messages if "failed" in m.message]
