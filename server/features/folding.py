"""Folding ranges: every key whose value spans lines (sections, block-scalar expressions and
prompts, nested mappings) folds from the key's line, and every list item that spans lines (a
node, an input) from its dash; one range per start line (the outermost)."""

from __future__ import annotations

from lsprotocol import types

from analysis.yaml_tree import YMapping, YNode, YSequence
from server.handlers import guarded
from server.language_server import RelaviumLanguageServer
from server.serving import View, view_of


def _last_character(text: str, start: int, end: int) -> int:
    """The offset of the node's last non-blank character (a block node's span runs on to the
    next line)."""
    index = end - 1
    while index > start and text[index] in " \t\r\n":
        index -= 1
    return index


def folding_ranges(view: View) -> list[types.FoldingRange]:
    root = view.result.document.root
    if root is None:
        return []
    text = view.snapshot.text
    lines = view.live_lines
    ranges: dict[int, int] = {}

    def fold(start: int, node: YNode) -> None:
        live_start = view.to_live(start)
        live_end = view.to_live(_last_character(text, node.start, node.end))
        if live_start is None or live_end is None:
            return
        first, last = lines.position_at(live_start).line, lines.position_at(live_end).line
        if last > first:
            ranges[first] = max(ranges.get(first, last), last)

    stack: list[YNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, YMapping):
            for entry in node.entries:
                fold(entry.key.start, entry.value)
                stack.append(entry.value)
        elif isinstance(node, YSequence):
            for item in node.items:
                fold(item.start, item)
                stack.append(item)
    return [types.FoldingRange(start_line=first, end_line=last)
            for first, last in sorted(ranges.items())]


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    @guarded(empty=list)
    async def folding(
        ls: RelaviumLanguageServer, params: types.FoldingRangeParams
    ) -> list[types.FoldingRange]:
        view = await view_of(ls, params.text_document.uri)
        if view is None:
            return []
        return folding_ranges(view)
