"""A token classification of one expression, for the server's semantic tokens.

Spans are code points into the expression string, sorted and non-overlapping; a template
literal yields its text pieces as strings and its substitutions' code classified normally. A
token may span lines (a block comment, a template); the server splits it as LSP requires.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tree_sitter import Node

from analysis.document.expressions.facts import SCOPE_BINDINGS, Span
from analysis.document.expressions.js_text import decode_identifier
from analysis.document.expressions.parsing import ParsedExpression
from analysis.document.expressions.scope import ScopedWalk
from analysis.document.text_cache import text_cache


class TokenKind(StrEnum):
    KEYWORD = "keyword"
    STRING = "string"
    NUMBER = "number"
    REGEXP = "regexp"
    COMMENT = "comment"
    OPERATOR = "operator"
    PROPERTY = "property"
    FUNCTION = "function"
    VARIABLE = "variable"
    SCOPE_BINDING = "scope-binding"  # the free `inputs`, `ctx`, `run`, `branches`


@dataclass(frozen=True, slots=True)
class Token:
    span: Span
    kind: TokenKind


_WHOLE = {
    "comment": TokenKind.COMMENT,
    "html_comment": TokenKind.COMMENT,
    "string": TokenKind.STRING,
    "regex": TokenKind.REGEXP,
    "number": TokenKind.NUMBER,
    "true": TokenKind.KEYWORD,
    "false": TokenKind.KEYWORD,
    "null": TokenKind.KEYWORD,
    "undefined": TokenKind.KEYWORD,
    "this": TokenKind.KEYWORD,
    "super": TokenKind.KEYWORD,
    "import": TokenKind.KEYWORD,
    "optional_chain": TokenKind.OPERATOR,
    "private_property_identifier": TokenKind.PROPERTY,
    "shorthand_property_identifier_pattern": TokenKind.VARIABLE,
}
# Punctuation that is an operator (brackets, `,`, `;`, `.` and `:` are left unstyled).
_OPERATOR_TEXT = (
    "! != !== % %= & && &&= &= * ** **= *= + ++ += - -- -= ... / /= < << <<= <= = == === => "
    "> >= >> >>= >>> >>>= ? ?? ??= ^ ^= | |= || ||= ~"
)
_OPERATORS = frozenset(_OPERATOR_TEXT.split())
_CALLEES = {"call_expression": "function", "new_expression": "constructor"}
_NAMED_FUNCTIONS = frozenset(
    {
        "function_expression",
        "function_declaration",
        "generator_function",
        "generator_function_declaration",
        "method_definition",
    }
)


@text_cache(max_bytes=16 * 2**20)
def semantic_tokens(source: str) -> tuple[Token, ...]:
    """Classify every token of `source` (error-tolerant: a broken expression is still lexed)."""
    return _Classifier(ParsedExpression(source)).tokens()


class _Classifier:
    def __init__(self, parsed: ParsedExpression) -> None:
        self.parsed = parsed
        self._tokens: list[Token] = []
        self._walk = ScopedWalk(parsed.root, lambda node: decode_identifier(parsed.text(node)))

    def tokens(self) -> tuple[Token, ...]:
        walk = self._walk
        for node in walk:
            kind = node.type
            whole = _WHOLE.get(kind)
            if whole is not None:
                self._emit(node, whole)
                walk.skip_children()
            elif kind == "template_string":
                self._template_text(node)  # the walk goes on into the substitutions' code
            elif kind in ("identifier", "shorthand_property_identifier"):
                self._emit(node, self._identifier(node))
            elif kind == "property_identifier":
                called = self._is_called_member()
                self._emit(node, TokenKind.FUNCTION if called else TokenKind.PROPERTY)
            elif node.child_count == 0:
                if kind in _OPERATORS:
                    self._emit(node, TokenKind.OPERATOR)
                elif kind.isalpha() and not node.is_named:
                    self._emit(node, TokenKind.KEYWORD)
        # A template's text pieces were emitted before its substitutions' tokens.
        tokens = sorted(self._tokens, key=lambda token: token.span.start)
        return tuple(self._with_html_comments(tokens))

    def _with_html_comments(self, tokens: list[Token]) -> list[Token]:
        """QuickJS's HTML-like comments (blanked before parsing, so not in the tree) as comment
        tokens. Tokens never overlap: in a text too broken to agree with itself (an unclosed
        template holding `//`: tree-sitter reads a comment inside the string) the first wins."""
        merged: list[Token] = []
        pending = iter(sorted(self.parsed.html_comments))
        comment = next(pending, None)
        for token in [*tokens, None]:
            while comment is not None and (token is None or comment[0] < token.span.start):
                start, end = comment
                if end > start and (not merged or merged[-1].span.end <= start) and (
                        token is None or end <= token.span.start):
                    merged.append(Token(Span(start, end), TokenKind.COMMENT))
                comment = next(pending, None)
            if token is not None and (not merged or merged[-1].span.end <= token.span.start):
                merged.append(token)
        return merged

    def _emit(self, node: Node, kind: TokenKind) -> None:
        if self.parsed.in_expression(node):
            self._tokens.append(Token(Span(self.parsed.start(node), self.parsed.end(node)), kind))

    def _template_text(self, template: Node) -> None:
        """The text pieces of a template as STRING tokens, adjacent pieces merged."""
        pending_start: int | None = None
        for child in template.children:
            if child.type == "template_substitution":
                if pending_start is not None:
                    self._text_piece(pending_start, child.start_byte)
                    pending_start = None
            elif pending_start is None:
                pending_start = child.start_byte
        if pending_start is not None:
            self._text_piece(pending_start, template.end_byte)

    def _text_piece(self, start_byte: int, end_byte: int) -> None:
        start, end = self.parsed.offset(start_byte), self.parsed.offset(end_byte)
        if end > start:
            self._tokens.append(Token(Span(start, end), TokenKind.STRING))

    def _identifier(self, node: Node) -> TokenKind:
        name = decode_identifier(self.parsed.text(node))
        if name in SCOPE_BINDINGS and self._walk.is_free(name):
            return TokenKind.SCOPE_BINDING
        path = self._walk.path
        parent = path[-2] if len(path) > 1 else None
        if parent is not None:
            callee_field = _CALLEES.get(parent.type)
            if callee_field is not None and parent.child_by_field_name(callee_field) == node:
                return TokenKind.FUNCTION
            if parent.type in _NAMED_FUNCTIONS and parent.child_by_field_name("name") == node:
                return TokenKind.FUNCTION
        return TokenKind.VARIABLE

    def _is_called_member(self) -> bool:
        """`x.map(...)`'s `map`, and a method definition's name (the current node)."""
        path = self._walk.path
        if len(path) < 2:
            return False
        parent = path[-2]
        if parent.type == "method_definition":
            return True
        if parent.type != "member_expression" or len(path) < 3:
            return False
        caller = path[-3]
        return (
            caller.type in _CALLEES and caller.child_by_field_name(_CALLEES[caller.type]) == parent
        )
