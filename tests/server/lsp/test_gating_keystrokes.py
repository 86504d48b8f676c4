"""Typing in the editor: the server analyses each version with the previous one, taking the
branch gates over while the graph's shape is unchanged (`analysis.document.gating.GatingMemo`);
the leaked-branch findings it publishes after each kind of edit are a fresh analysis's, at the
lines the text moved them to."""

from __future__ import annotations

import pytest
from lsprotocol import types

from analysis.checks.analyze import analyze
from tests.analysis.document.test_gating_reuse import WORKFLOW
from tests.server.conftest import RelaviumClient, Workspace

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _typed(client: RelaviumClient, uri: str, old: str, new: str) -> None:
    """Replace the first `old` in the open document with `new`, as one didChange."""
    text = client.text(uri)
    at = text.index(old)
    start = types.Position(line=text.count("\n", 0, at), character=at - text.rfind("\n", 0, at) - 1)
    end_at = at + len(old)
    end = types.Position(line=text.count("\n", 0, end_at),
                         character=end_at - text.rfind("\n", 0, end_at) - 1)
    client.change(uri, types.TextDocumentContentChangePartial(
        range=types.Range(start=start, end=end), text=new))


def _leaks(found: list[types.Diagnostic]) -> list[tuple[int, int, str]]:
    return [(d.range.start.line, d.range.start.character, d.message) for d in found
            if d.code == "leaked-branch"]


async def test_typed_edits_publish_a_fresh_analysiss_leaks(
        client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("gating-keystrokes.relavium.yaml", WORKFLOW)
    first = _leaks(await client.diagnostics_for(uri))
    assert len(first) == 3
    edits = [
        # inside an expression, a line break before the leaks: the same gates, moved a line on
        ("transform: '({ ready: true })' }", "\n        transform: '({ ready: false })' }"),
        ("expression: '\"b\"'", "expression: '\"a\"'"),
        # the shape: a branch's `when`, then a read dropped
        ("{ when: a, target_node: confirm }", "{ when: c, target_node: confirm }"),
        (' {{ run.outputs["fetch"].ready }}', ""),
    ]
    seen = [first]
    for old, new in edits:
        _typed(client, uri, old, new)
        published = _leaks(await client.diagnostics_for(uri))
        fresh = analyze(client.text(uri))
        assert published == [(d.range.start.line, d.range.start.character, d.message)
                             for d in fresh.diagnostics if d.rule == "leaked-branch"], old
        seen.append(published)
    assert [line for line, _, _ in seen[1]] == [line + 1 for line, _, _ in first]
    assert seen[3] != seen[2] and seen[4] != seen[3]  # so stale gates would show
