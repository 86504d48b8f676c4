"""Folding ranges: every key whose value spans lines (sections, block-scalar expressions and
prompts, nested mappings) folds from the key's line, and every list item that spans lines (a
node, an input) from its dash; one range per start line (the outermost). Where they are is
`analysis.ide.outline.folds`; here they are placed in the client's lines."""

from __future__ import annotations

from lsprotocol import types

from analysis.ide.outline import folds
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.serving import View, placed_answer


def folding_ranges(view: View, spans: list[tuple[int, int]]) -> list[types.FoldingRange]:
    """`analysis.ide.outline.folds`' spans as the client's folding ranges."""
    lines = view.live_lines
    ranges: dict[int, int] = {}
    for start, last_character in spans:
        live_start, live_end = view.to_live(start), view.to_live(last_character)
        if live_start is None or live_end is None:
            continue
        first, last = lines.line_at(live_start), lines.line_at(live_end)
        if last > first:
            ranges[first] = max(ranges.get(first, last), last)
    return [types.FoldingRange(start_line=first, end_line=last)
            for first, last in sorted(ranges.items())]


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    @guarded(empty=list)
    async def folding(
        ls: RelaviumLanguageServer, params: types.FoldingRangeParams
    ) -> list[types.FoldingRange]:
        return await placed_answer(ls, params.text_document.uri, folds, folding_ranges) or []
