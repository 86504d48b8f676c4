"""The document text and its coordinate systems.

Contract:
- An *offset* is an index into the document `str` (Unicode code points), as libyaml's mark
  `.index` is (plus one when the text starts with a BOM, which libyaml does not count).
- A `Position` (from `analysis.diagnostics`) is a 0-based line and a code-point column. Lines are
  split at `\\n`, `\\r\\n` and `\\r` only, as LSP does (libyaml also breaks at U+0085/U+2028/U+2029,
  so its own line/column are never used).
- `utf16_character()` converts a position's column to UTF-16 code units for the CLI's JSON and
  SARIF output and for LSP clients.
"""

from __future__ import annotations

import bisect
import re
from functools import cached_property
from itertools import accumulate

from analysis.diagnostics import Position, Range

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def utf16_length(text: str) -> int:
    """Number of UTF-16 code units `text` occupies."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def code_points_in(text: str, utf16_units: int) -> int:
    """How many leading code points of `text` span `utf16_units` UTF-16 code units (a character
    the count ends inside is included)."""
    count = 0
    for char in text:
        if utf16_units <= 0:
            break
        utf16_units -= 2 if ord(char) > 0xFFFF else 1
        count += 1
    return count


def line_starts(text: str) -> list[int]:
    """The offset of each line's first character (LSP's line breaks)."""
    if "\r" in text:
        return [0, *(match.end() for match in _LINE_BREAK.finditer(text))]
    # The common case, without a match object per line (a third of the time).
    return list(accumulate([len(line) + 1 for line in text.split("\n")[:-1]], initial=0))


class SourceText:
    """Immutable document text with line starts and offset/position conversion."""

    __slots__ = ("__dict__", "line_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts: list[int] = line_starts(text)

    @cached_property
    def _ascii(self) -> bool:
        return self.text.isascii()

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    def position(self, offset: int) -> Position:
        """The position of a document offset (clamped to the text)."""
        offset = min(max(offset, 0), len(self.text))
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return Position(line, offset - self.line_starts[line])

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(max(start, end)))

    def offset(self, position: Position) -> int:
        """The document offset of a position; columns past the line's end clamp to its end."""
        if position.line < 0:
            return 0
        if position.line >= len(self.line_starts):
            return len(self.text)
        start = self.line_starts[position.line]
        return start + min(max(position.character, 0), len(self.line_text(position.line)))

    def line_text(self, line: int) -> str:
        """The text of a line without its line break."""
        start = self.line_starts[line]
        end = self.line_starts[line + 1] if line + 1 < len(self.line_starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def utf16_character(self, position: Position) -> int:
        """The UTF-16 column of a code-point position."""
        if self._ascii or position.line >= len(self.line_starts):
            return position.character
        return utf16_length(self.line_text(position.line)[: position.character])
