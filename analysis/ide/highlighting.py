"""Where the semantic tokens of the JavaScript inside expression fields lie in the document, as
plain data (`analysis.document.expressions.semantic_tokens`, mapped through each YAML scalar).

Contract:
- `expression_tokens(result)` (never raises) → (start, end, kind) document spans, one per token
  and source line: a token that spans lines (a comment or template in a block scalar), or whose
  source does (a folded scalar's line break), is split, as LSP requires. Fields whose source
  could not be mapped character by character are left out. Empty when there is no model.
- Plain data, so the analysis process can send it: a large document's tokens are computed where
  its model is (server/lsp/worker/).
"""

from __future__ import annotations

from collections.abc import Iterator

from analysis.checks.analyze import AnalysisResult
from analysis.document.expressions import TokenKind, semantic_tokens
from analysis.document.model import ExpressionField


def _line_pieces(field: ExpressionField, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Document spans of decoded `[start, end)`, one per source line; characters whose source is
    a line break (a literal newline, a folded scalar's break) separate pieces, and a piece after
    one starts at its first non-blank character."""
    source = field.source
    doc_start, doc_end = field.source_span(start, end)
    if not any(ch in "\r\n" for ch in source.text[doc_start:doc_end]):
        yield doc_start, doc_end
        return
    piece: int | None = None
    piece_line = -1
    for index in range(start, end + 1):
        char_start, char_end = field.source_span(index, index + 1) if index < end else (0, 0)
        breaks = index == end or any(ch in "\r\n" for ch in source.text[char_start:char_end])
        line = -1 if breaks else source.position(char_start).line
        if piece is not None and (breaks or line != piece_line):
            yield field.source_span(piece, index)
            piece = None
        if piece is None and not breaks and field.value[index] not in " \t":
            piece, piece_line = index, line  # a continuation line's piece starts at its text


def expression_tokens(result: AnalysisResult) -> list[tuple[int, int, TokenKind]]:
    workflow = result.workflow
    if workflow is None:
        return []
    return [
        (doc_start, doc_end, token.kind)
        for field in workflow.expression_fields() if field.exact
        for token in semantic_tokens(field.value)
        for doc_start, doc_end in _line_pieces(field, token.span.start, token.span.end)
    ]
