"""Where an expression holds `{{ … }}` in code position (never inside a string or comment):
template syntax in a field that is never interpolated (`template-in-expression` reports the
ones that break the expression)."""

from __future__ import annotations

from itertools import pairwise

from tree_sitter import QueryCursor

from analysis.document.expressions.js_text import LiteralRegions
from analysis.document.expressions.parsing import ParsedExpression, query

_BRACE_QUERY = query('"{" @brace')


def template_braces(parsed: ParsedExpression) -> list[tuple[int, int]]:
    """The code-point spans of each `{{ … }}` in code position, in order."""
    if "{{" not in parsed.source:
        return []
    braces = sorted(
        (
            node
            for node in QueryCursor(_BRACE_QUERY).captures(parsed.root).get("brace", [])
            if parsed.in_expression(node)
        ),
        key=lambda node: node.start_byte,
    )
    spans: list[tuple[int, int]] = []
    literals = LiteralRegions(parsed.source)
    close: int | None = None  # the next `}}` (-1: none left), reused while it lies ahead
    for first, second in pairwise(braces):
        if first.end_byte != second.start_byte or (spans and spans[-1][1] > parsed.start(first)):
            continue
        start = parsed.start(first)
        if literals.contain(start):
            continue  # tree-sitter recovered from an unterminated literal by lexing its text
        if close is None or 0 <= close < start + 2:
            close = parsed.source.find("}}", start + 2)
        spans.append((start, close + 2 if close != -1 else start + 2))
    return spans
