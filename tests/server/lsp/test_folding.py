"""Folding ranges end to end: sections, multi-line nodes and block-scalar expressions."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
LINES = EXAMPLE.splitlines()


def line_of(needle: str) -> int:
    return next(number for number, line in enumerate(LINES) if needle in line)


async def test_folding_ranges(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("folding.relavium.yaml", EXAMPLE)
    found = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=identifier(uri))
    )
    ranges = {(r.start_line, r.end_line) for r in found or []}
    # the workflow mapping, from its key to the last edge
    assert (LINES.index("workflow:"), len(LINES) - 1) in ranges
    assert (line_of("  inputs:"), line_of("{ name: crm_token")) in ranges
    # a node: from its id line to its last line
    assert (line_of("- id: route"), line_of("default: enrich")) in ranges
    # the block-scalar expression, from its key
    assert (line_of("      expression: |"), line_of(': "normal"')) in ranges
    # one range per start line, every range spans lines
    starts = [start for start, _ in ranges]
    assert len(starts) == len(set(starts))
    assert all(end > start for start, end in ranges)
    # single-line flow nodes do not fold
    assert line_of("- { id: start") not in starts


async def test_unknown_document(client: RelaviumClient, workspace: Workspace) -> None:
    found = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=identifier(workspace.uri("nope.relavium.yaml")))
    )
    assert found is not None and list(found) == []
