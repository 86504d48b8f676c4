"""Semantic tokens end to end: the JavaScript in expression fields, full and range, split per
line, in the negotiated encoding."""

from __future__ import annotations

import pytest
from lsprotocol import types

from server.lsp.positions import LineIndex
from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")


def legend(client: RelaviumClient) -> tuple[list[str], list[str]]:
    assert client.initialize_result is not None
    provider = client.initialize_result.capabilities.semantic_tokens_provider
    assert isinstance(provider, types.SemanticTokensOptions)
    assert provider.full and provider.range
    return list(provider.legend.token_types), list(provider.legend.token_modifiers)


def decode(client: RelaviumClient, text: str, data: list[int]) -> list[tuple[int, str, str]]:
    """(line, token text, type[+modifiers]) for each token."""
    types_, modifiers = legend(client)
    lines = LineIndex(text, client.encoding)
    decoded = []
    line = character = 0
    for index in range(0, len(data), 5):
        delta_line, delta_start, length, token_type, bits = data[index:index + 5]
        line += delta_line
        character = character + delta_start if delta_line == 0 else delta_start
        start = lines.client_offset(types.Position(line=line, character=character))
        end = lines.client_offset(types.Position(line=line, character=character + length))
        names = [types_[token_type]] + [m for i, m in enumerate(modifiers) if bits >> i & 1]
        decoded.append((line, text[start:end], "+".join(names)))
    return decoded


async def full(client: RelaviumClient, uri: str, text: str) -> list[tuple[int, str, str]]:
    found = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=identifier(uri))
    )
    assert isinstance(found, types.SemanticTokens)
    return decode(client, text, list(found.data))


async def test_expression_tokens(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("tokens.relavium.yaml", EXAMPLE)
    tokens = await full(client, uri, EXAMPLE)
    route = [(text, kind) for line, text, kind in tokens if line == 45]
    assert route == [
        ("run", "variable+readonly+defaultLibrary"), ("outputs", "property"),
        ('"classify"', "string"), ("severity", "property"), (">=", "operator"),
        ("inputs", "variable+readonly+defaultLibrary"), ("severity_floor", "property"),
        ("??", "operator"), ("7", "number"),
    ]
    assert [(text, kind) for line, text, kind in tokens if line == 46] == [
        ("?", "operator"), ('"urgent"', "string")
    ]
    sentiment = [(text, kind) for line, text, kind in tokens if line == 66]
    assert ("/refund|angry|cancel/i", "regexp") in sentiment
    assert ("test", "function") in sentiment
    # nothing outside expression fields (prompts, ids, keys)
    assert {line for line, _, _ in tokens} == {45, 46, 47, 62, 66, 71, 83}


async def test_multi_line_tokens_split_per_line_with_emoji(
    client: RelaviumClient, workspace: Workspace
) -> None:
    text = EXAMPLE.replace(
        "        Object.assign({}, ...branches, { team: ctx.team })\n",
        "        /* 😀 merge\n           é */ Object.assign({}, ...branches, { team: ctx.team })\n",
    )
    uri = workspace.open("tokens-emoji.relavium.yaml", text)
    tokens = await full(client, uri, text)
    assert (71, "/* 😀 merge", "comment") in tokens
    assert (72, "é */", "comment") in tokens
    assert (72, "Object", "variable") in tokens
    assert (72, "branches", "variable+readonly+defaultLibrary") in tokens


async def test_range_request(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("tokens-range.relavium.yaml", EXAMPLE)
    found = await client.text_document_semantic_tokens_range_async(
        types.SemanticTokensRangeParams(
            text_document=identifier(uri),
            range=types.Range(start=types.Position(line=46, character=0),
                              end=types.Position(line=63, character=0)),
        )
    )
    assert isinstance(found, types.SemanticTokens)
    lines = {line for line, _, _ in decode(client, EXAMPLE, list(found.data))}
    assert lines == {46, 47, 62}


async def test_unknown_document(client: RelaviumClient, workspace: Workspace) -> None:
    found = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=identifier(workspace.uri("x.relavium.yaml")))
    )
    assert found is not None and list(found.data) == []
