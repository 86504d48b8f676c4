"""Semantic tokens (full and range) for the JavaScript inside expression fields: where they are is
`analysis.ide.highlighting.expression_tokens` (one piece per line, as LSP requires); here they are
placed in the client's lines and encoded."""

from __future__ import annotations

from lsprotocol import types

from analysis.document.expressions import TokenKind
from analysis.ide.highlighting import expression_tokens
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.serving import View, placed_answer

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


def encoded_tokens(view: View, pieces: list[tuple[int, int, TokenKind]]) -> list[Encoded]:
    """`analysis.ide.highlighting.expression_tokens`' pieces in the client's lines, sorted."""
    tokens: list[Encoded] = []
    for doc_start, doc_end, kind in pieces:
        token_type, modifiers = _ENCODING[kind]
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
    return await placed_answer(ls, uri, expression_tokens, encoded_tokens) or []


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
