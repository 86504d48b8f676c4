"""The opt-in author detail of a failed evaluation: class, message and expression range.

Dry-run surfaces (`eval`, `run`, the editor's run commands) show the author their own error; the
engine-shaped error stays as the spec says. Coordinates are the authored expression's: 0-based
lines (every JavaScript line terminator counts) and 0-based UTF-16 columns.
"""

from __future__ import annotations

import re

from sandbox.errors import ErrorDetail, SandboxError, SourcePosition, SourceRange
from sandbox.syntax import LINE_TERMINATOR, offset_of_engine_position

_IDENTIFIER_PART = re.compile(r"[\w$\u200c\u200d]+")
# QuickJS reports a failed member access at the start of the whole member expression; the token
# that failed is the property it names.
_PROPERTY_MESSAGE = re.compile(r"^cannot (?:read|set) property '([^']*)' of ")


def error_detail(source: str, error: SandboxError) -> ErrorDetail | None:
    """The author detail of `error` raised for `source`, or None (a secret_context failure, or a
    failure the host decided, which has no JavaScript error)."""
    site = error.site
    if error.reason == "secret_context" or site is None:
        return None
    offset = site.source_offset
    if offset is None and site.engine_position is not None:
        offset = offset_of_engine_position(source, *site.engine_position)
    if offset is None:
        return ErrorDetail(site.cls, site.message, None)
    start, end = _token(source, min(offset, len(source)), site.message)
    return ErrorDetail(
        site.cls, site.message, SourceRange(_position(source, start), _position(source, end))
    )


def _token(source: str, offset: int, message: str) -> tuple[int, int]:
    """The code-point span of the failing token at `offset`."""
    named = _PROPERTY_MESSAGE.match(message)
    if named is not None:
        line_end = LINE_TERMINATOR.search(source, offset)
        stop = len(source) if line_end is None else line_end.start()
        name = re.escape(named[1])
        access = re.compile(rf"\??\.\s*({name})(?![\w$])|\[\s*(['\"]){name}\2\s*\]")
        found = access.search(source, offset, stop)
        if found is not None:
            return (found.start(1), found.end(1)) if found[1] else found.span()
    word = _IDENTIFIER_PART.match(source, offset)
    if word is not None:
        return word.span()
    return offset, min(offset + 1, len(source))


def _position(source: str, offset: int) -> SourcePosition:
    line = 0
    line_start = 0
    for terminator in LINE_TERMINATOR.finditer(source, 0, offset):
        line += 1
        line_start = terminator.end()
    column = sum(2 if ord(char) > 0xFFFF else 1 for char in source[line_start:offset])
    return SourcePosition(line, column)
