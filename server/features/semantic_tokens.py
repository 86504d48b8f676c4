"""Semantic tokens (full and range) for the JavaScript inside expression fields, from
`analysis.expressions.semantic_tokens`, mapped through each YAML scalar to document lines.

A token that spans lines (a comment or template in a block scalar) or whose source spans lines
(a folded scalar's line break) is split into one token per line, as LSP requires.
"""

from __future__ import annotations

from collections.abc import Iterator

from lsprotocol import types

from analysis.expressions import TokenKind, semantic_tokens
from analysis.model import ExpressionField
from server.handlers import guarded
from server.language_server import RelaviumLanguageServer
from server.serving import View, view_of

TOKEN_TYPES = ["keyword", "string", "number", "regexp", "comment", "operator", "property",
               "function", "variable"]
TOKEN_MODIFIERS = ["readonly", "defaultLibrary"]
LEGEND = types.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS)

# kind → (type index, modifier bits); the scope bindings are read-only built-in variables
_ENCODING: dict[TokenKind, tuple[int, int]] = {
    kind: (TOKEN_TYPES.index(kind.value), 0) for kind in TokenKind
    if kind is not TokenKind.SCOPE_BINDING
}
_ENCODING[TokenKind.SCOPE_BINDING] = (TOKEN_TYPES.index("variable"), 0b11)

# (line, start character, length) in client units, type index, modifier bits
Encoded = tuple[int, int, int, int, int]


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


def encoded_tokens(view: View) -> list[Encoded]:
    tokens: list[Encoded] = []
    for field in view.workflow.expression_fields():
        if not field.exact:
            continue
        for token in semantic_tokens(field.value):
            token_type, modifiers = _ENCODING[token.kind]
            for doc_start, doc_end in _line_pieces(field, token.span.start, token.span.end):
                start, end = view.to_live(doc_start), view.to_live(doc_end)
                if start is None or end is None or end <= start:
                    continue
                (line, first), (last_line, last) = view.client_point(start), view.client_point(end)
                if line == last_line:
                    tokens.append((line, first, last - first, token_type, modifiers))
    tokens.sort()
    return tokens


def _relative(tokens: list[Encoded]) -> list[int]:
    data: list[int] = []
    previous_line = previous_start = 0
    for line, start, length, token_type, modifiers in tokens:
        delta_start = start - previous_start if line == previous_line else start
        data.extend((line - previous_line, delta_start, length, token_type, modifiers))
        previous_line, previous_start = line, start
    return data


async def _tokens(ls: RelaviumLanguageServer, uri: str) -> list[Encoded]:
    view = await view_of(ls, uri)
    return encoded_tokens(view) if view is not None else []


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    @guarded(empty=lambda: types.SemanticTokens(data=[]))
    async def full(
        ls: RelaviumLanguageServer, params: types.SemanticTokensParams
    ) -> types.SemanticTokens:
        return types.SemanticTokens(data=_relative(await _tokens(ls, params.text_document.uri)))

    @ls.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, LEGEND)
    @guarded(empty=lambda: types.SemanticTokens(data=[]))
    async def in_range(
        ls: RelaviumLanguageServer, params: types.SemanticTokensRangeParams
    ) -> types.SemanticTokens:
        start, end = params.range.start, params.range.end
        inside = [
            token for token in await _tokens(ls, params.text_document.uri)
            if (token[0], token[1] + token[2]) > (start.line, start.character)
            and (token[0], token[1]) < (end.line, end.character)
        ]
        return types.SemanticTokens(data=_relative(inside))
