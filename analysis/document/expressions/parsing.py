"""Parse one expression with tree-sitter-javascript the way the engine wraps it, with offsets.

The engine evaluates an expression inside parentheses (the source on its own lines), so
`{ ...branches[0] }` is an object literal, not a block; parsing the same wrapped text gives the
same reading. QuickJS also reads Annex B HTML-like comments, which tree-sitter does not: `<!--`
anywhere in code, and `-->` first on a line (after only whitespace and comments), comment out the
rest of the line. They are found on the tree, blanked (spaces, same byte length) and the text
parsed again, so every scan sees what QuickJS runs; `html_comments` lists them. Tree-sitter reports
UTF-8 byte offsets into the wrapped text; `ParsedExpression.offset` turns them into code-point
offsets into the expression string itself.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser, Query, QueryCursor

LANGUAGE = Language(tree_sitter_javascript.language())


class _ThreadParser(threading.local):
    """A tree-sitter Parser must not be used by two threads at once (the language server
    analyses documents on a thread pool), so each thread keeps its own."""

    def __init__(self) -> None:
        self.parser = Parser(LANGUAGE)


_PARSERS = _ThreadParser()
# tree-sitter holds the interpreter lock for a whole parse: 0.4 s for a garbled 32 KiB expression,
# every other thread of the language server stopped meanwhile (bench/gil_hold.py). Fed through a
# callback in chunks, it runs Python code at each chunk, where the lock can change hands.
_CHUNK_BYTES = 512


def _parse(data: bytes) -> Node:
    return _PARSERS.parser.parse(lambda offset, _: data[offset : offset + _CHUNK_BYTES]).root_node

_PREFIX = b"(\n"
_PREFIX_LENGTH = len(_PREFIX)
# A newline before the closing parenthesis, so a trailing `// comment` cannot swallow it.
_SUFFIX = b"\n)"

# JSX parses in tree-sitter-javascript but is a syntax error to the engine.
_JSX_QUERY = Query(LANGUAGE, "[(jsx_element) (jsx_self_closing_element)] @jsx")


def query(source: str) -> Query:
    """A query over the JavaScript grammar (callers keep it at module level)."""
    return Query(LANGUAGE, source)


def _utf8_length(char: str) -> int:
    code = ord(char)
    if code < 0x80:
        return 1
    if code < 0x800:
        return 2
    return 3 if code < 0x10000 else 4


_LINE_TERMINATORS = (b"\n", b"\r", "\u2028".encode(), "\u2029".encode())
_LINE_END = re.compile(b"|".join(re.escape(t) for t in _LINE_TERMINATORS))
# Each parse after the first costs a whole parse; past this many the expression counts as broken
# (scans fall back to the engine's own, which say nothing they are unsure of).
MAX_COMMENT_PARSES = 16
# Nodes whose text is not code: no comment starts inside them.
_OPAQUE = frozenset({"string", "regex", "comment", "html_comment"})


def _tokens(node: Node) -> Iterator[tuple[Node, str]]:
    """The leaves in source order as (node, "code" | "comment" | "text"); a string, regex or a
    template's text piece is one "text" token (a template's substitutions are code)."""
    stack: list[tuple[Node, bool]] = [(node, False)]  # (node, is a template's text piece)
    while stack:
        current, text_piece = stack.pop()
        kind = current.type
        if kind in ("comment", "html_comment"):
            yield current, "comment"
        elif text_piece or kind in _OPAQUE:
            yield current, "text"
        elif kind == "template_string":
            stack.extend((child, child.type != "template_substitution")
                         for child in reversed(current.children))
        elif current.child_count == 0:
            yield current, "code"
        else:
            stack.extend((child, False) for child in reversed(current.children))


def _has_line_terminator(data: bytes) -> bool:
    return any(terminator in data for terminator in _LINE_TERMINATORS)


def _html_comment_batch(root: Node, data: bytes) -> list[tuple[int, int]]:
    """Byte spans (each to its line's end) of the HTML-like comments QuickJS reads, leftmost
    first. The tree was parsed without knowing them, so once a comment's text could have opened
    something that spans lines in that parse (a template, a block comment, a backslash line
    continuation), what follows is not trusted: the batch stops there, the caller parses again."""
    found: list[tuple[int, int]] = []
    previous_end = 0
    # QuickJS's `got_lf`: a line terminator since the last token (also inside a block comment).
    line_start = True
    for token, kind in _tokens(root):
        start = token.start_byte
        if found and start < found[-1][1]:
            continue  # inside the comment just found
        if _has_line_terminator(data[previous_end:start]):
            line_start = True
        if kind == "code" and (data.startswith(b"<!--", start) or (
                line_start and data.startswith(b"-->", start))):
            line_end = _LINE_END.search(data, start)
            end = line_end.start() if line_end else len(data)
            found.append((start, end))
            text = data[start:end]
            if b"`" in text or b"/*" in text or b"\\" in text:
                break
            previous_end = end
            continue
        if kind == "comment":
            line_start = line_start or _has_line_terminator(data[start:token.end_byte])
        else:
            line_start = False
        previous_end = token.end_byte
    return found


class ParsedExpression:
    """A parsed expression and the mapping from tree-sitter byte offsets to code points."""

    __slots__ = ("_byte_starts", "broken", "data", "html_comments", "root", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        # surrogatepass: a lone surrogate (possible from a YAML escape) must not raise; it becomes
        # three bytes tree-sitter treats as an invalid character.
        body = source.encode("utf-8", "surrogatepass")
        self.data = _PREFIX + body + _SUFFIX
        self.root: Node = _parse(self.data)
        comments: list[tuple[int, int]] = []
        parses, gave_up = 0, False
        if b"<!--" in body or b"-->" in body:
            while batch := _html_comment_batch(self.root, self.data):
                if parses == MAX_COMMENT_PARSES:
                    gave_up = True
                    break
                parses += 1
                data = bytearray(self.data)
                for start, end in batch:
                    data[start:end] = b" " * (end - start)
                comments.extend(batch)
                self.data = bytes(data)
                self.root = _parse(self.data)
            comments.sort()
        # Code point i starts at byte _byte_starts[i] of `body`; None when every character is ASCII.
        self._byte_starts: Sequence[int] | None = (
            None
            if len(body) == len(source)
            else list(accumulate((_utf8_length(c) for c in source), initial=0))
        )
        self.broken = gave_up or self._is_broken(len(body))
        # Code-point spans of the HTML-like comments (blanked in `data`, so absent from `root`).
        self.html_comments = [(self.offset(start), self.offset(end)) for start, end in comments]

    def _is_broken(self, body_length: int) -> bool:
        """True when scans of the tree cannot be trusted (errors, JSX, or not ONE expression)."""
        root = self.root
        if root.has_error or root.named_child_count != 1:
            return True
        statement = root.named_children[0]
        if statement.type != "expression_statement" or statement.named_child_count != 1:
            return True
        wrapped = statement.named_children[0]
        if (
            wrapped.type != "parenthesized_expression"
            or wrapped.start_byte != 0
            or wrapped.end_byte != len(_PREFIX) + body_length + len(_SUFFIX)
        ):
            return True
        # Every JSX element starts with `<`: most expressions need no query over their tree.
        return b"<" in self.data and bool(QueryCursor(_JSX_QUERY).captures(root))

    def offset(self, byte: int) -> int:
        """The code-point offset in `source` of a byte offset in the wrapped text (clamped)."""
        relative = byte - _PREFIX_LENGTH
        if relative <= 0:
            return 0
        starts = self._byte_starts
        if starts is not None:
            relative = bisect_right(starts, relative) - 1
        # (not min(): this runs for every span of every scan)
        length = len(self.source)
        return relative if relative < length else length

    def start(self, node: Node) -> int:
        return self.offset(node.start_byte)

    def end(self, node: Node) -> int:
        return self.offset(node.end_byte)

    def text(self, node: Node) -> str:
        """The node's source text as the expression string holds it."""
        # Asked of every node the scans and the type inference read (200,000 times at 5,000
        # expressions): an ASCII expression's offsets are the bytes', moved by the prefix.
        if self._byte_starts is not None:
            return self.source[self.offset(node.start_byte) : self.offset(node.end_byte)]
        start, end = node.start_byte - _PREFIX_LENGTH, node.end_byte - _PREFIX_LENGTH
        # a slice clamps an end past the source; a start or end in the prefix is clamped to 0
        return self.source[start if start > 0 else 0 : end if end > 0 else 0]

    def in_expression(self, node: Node) -> bool:
        """False for the wrapper's own parentheses."""
        return (
            node.start_byte >= len(_PREFIX)
            and node.end_byte <= len(self.data) - len(_SUFFIX)
            and node.end_byte > node.start_byte
        )
