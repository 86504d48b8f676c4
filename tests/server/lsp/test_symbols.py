"""Document symbols end to end: sections, nodes grouped by type, ranges that select the ids."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier, spanned

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")


async def symbols(client: RelaviumClient, uri: str) -> list[types.DocumentSymbol]:
    found = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=identifier(uri))
    )
    assert all(isinstance(symbol, types.DocumentSymbol) for symbol in found or [])
    return [symbol for symbol in found or [] if isinstance(symbol, types.DocumentSymbol)]


def tree(symbol: types.DocumentSymbol) -> object:
    if not symbol.children:
        return symbol.name
    return {symbol.name: [tree(child) for child in symbol.children]}


def contains(outer: types.Range, inner: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(outer.start) <= key(inner.start) and key(inner.end) <= key(outer.end)


def walk(found: list[types.DocumentSymbol]) -> list[types.DocumentSymbol]:
    result = []
    for symbol in found:
        result.append(symbol)
        result.extend(walk(symbol.children or []))
    return result


async def test_outline(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("symbols.relavium.yaml", EXAMPLE)
    found = await symbols(client, uri)
    assert [tree(symbol) for symbol in found] == [
        {"inputs": ["ticket_text", "customer_tier", "severity_floor", "crm_token"]},
        {"context": ["team", "crm_auth"]},
        {"agents": ["classifier", "writer"]},
        {"nodes": [
            {"input": ["start"]}, {"agent": ["classify", "draft-reply"]},
            {"human_gate": ["escalate"]}, {"condition": ["route"]},
            {"transform": ["history", "sentiment", "topic"]}, {"parallel": ["enrich"]},
            {"merge": ["combine"]}, {"output": ["done"]},
        ]},
        {"edges": [
            "start → classify", "classify → route", "route:urgent → topic",
            "topic → escalate", "route:normal → enrich", "enrich → history", "enrich → sentiment",
            "history → combine", "sentiment → combine", "combine → draft-reply",
            "escalate → done", "draft-reply → done",
        ]},
    ]
    inputs = found[0].children or []
    assert inputs[3].detail == "secret"
    nodes = found[3].children or []
    assert nodes[1].detail == "2 nodes"
    draft = (nodes[1].children or [])[1]
    assert spanned(client, EXAMPLE, draft.selection_range) == "draft-reply"
    assert spanned(client, EXAMPLE, draft.range).startswith("id: draft-reply\n      type: agent")
    for symbol in walk(found):
        assert contains(symbol.range, symbol.selection_range), symbol.name
        for child in symbol.children or []:
            assert contains(symbol.range, child.range), child.name


async def test_half_typed_and_unknown(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("symbols-half.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)
    broken = EXAMPLE.replace("  edges:\n", "  edges:\n    - { from: \n")
    client.replace_all(uri, broken)
    assert [d.code for d in await client.diagnostics_for(uri)] == ["yaml-syntax"]
    found = await symbols(client, uri)
    assert [symbol.name for symbol in found] == ["inputs", "context", "agents", "nodes", "edges"]
    start = (found[3].children or [])[0]
    assert spanned(client, broken, (start.children or [])[0].selection_range) == "start"
    # an edge after the edit keeps its place in the new text
    last_edge = (found[4].children or [])[-1]
    assert spanned(client, broken, last_edge.selection_range) == "done"
    assert await symbols(client, workspace.uri("closed.relavium.yaml")) == []
