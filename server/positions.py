"""Convert between analysis positions (code points) and LSP positions (the negotiated encoding).

Lines follow the LSP definition (`\\n`, `\\r\\n`, `\\r`), not `str.splitlines`, which also breaks
on form feeds and U+2028 and would disagree with every client about line numbers.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import cached_property

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from analysis.diagnostics import Position, Range
from analysis.source import line_starts


class LineIndex:
    """One text's line starts, for conversions in both directions and for offsets."""

    def __init__(
        self, text: str, encoding: str = types.PositionEncodingKind.Utf16,
        starts: list[int] | None = None,
    ) -> None:
        """`starts`: the text's line starts when they are known already (the `SourceText` of an
        analysis of `text` has them; finding them again took 33 ms for a 1 MB document)."""
        self.text = text
        self.encoding = encoding
        self._codec = PositionCodec(encoding)
        self._known_starts = starts

    @cached_property
    def _line_starts(self) -> list[int]:
        return self._known_starts if self._known_starts is not None else line_starts(self.text)

    @property
    def line_count(self) -> int:
        return len(self._line_starts)

    def line_text(self, line: int) -> str:
        """The line's content without its line break."""
        start = self._line_starts[line]
        end = self._line_starts[line + 1] if line + 1 < self.line_count else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def client_line_length(self, line: int) -> int:
        """The line's length in client units, without its line break."""
        return int(self._codec.client_num_units(self.line_text(line)))

    def offset(self, position: Position) -> int:
        """Code-point offset of an analysis position, clamped into the text."""
        if position.line < 0:
            return 0
        if position.line >= self.line_count:
            return len(self.text)
        line = self.line_text(position.line)
        return self._line_starts[position.line] + min(max(position.character, 0), len(line))

    def line_at(self, offset: int) -> int:
        """The line of a code-point offset, clamped into the text."""
        return bisect_right(self._line_starts, min(max(offset, 0), len(self.text))) - 1

    def position_at(self, offset: int) -> Position:
        offset = min(max(offset, 0), len(self.text))
        line = bisect_right(self._line_starts, offset) - 1
        column = min(offset - self._line_starts[line], len(self.line_text(line)))
        return Position(line, column)

    def client_point(self, offset: int) -> tuple[int, int]:
        """A code-point offset (clamped into the text) as (line, character in client units):
        without pygls' codec when the line's prefix is ASCII, where every encoding counts one
        unit per character (a large outline or token list converts tens of thousands)."""
        offset = min(max(offset, 0), len(self.text))
        line = self.line_at(offset)
        prefix = self.text[self._line_starts[line] : offset]
        if prefix.isascii() and not prefix.endswith("\r"):  # not between "\r" and "\n"
            return line, len(prefix)
        client = self.to_client_position(self.position_at(offset))
        return client.line, client.character

    def to_client_position(self, position: Position) -> types.Position:
        """Analysis (code points) → client units; out-of-range positions clamp to the text."""
        clamped = self.position_at(self.offset(position))
        prefix = self.line_text(clamped.line)[: clamped.character]
        return types.Position(line=clamped.line, character=self._codec.client_num_units(prefix))

    def to_client_range(self, range_: Range) -> types.Range:
        return types.Range(
            start=self.to_client_position(range_.start), end=self.to_client_position(range_.end)
        )

    def from_client_position(self, position: types.Position) -> Position:
        """Client units → analysis position. Clamps past-the-end lines and columns, and a column
        inside a surrogate pair (or UTF-8 sequence) snaps to the character's start."""
        if position.line >= self.line_count:
            last = self.line_count - 1
            return Position(last, len(self.line_text(last)))
        line = self.line_text(position.line)
        units = 0
        for column, char in enumerate(line):
            units += self._codec.impl.code_units_for_char(char)
            if units > position.character:
                return Position(position.line, column)
        return Position(position.line, len(line))

    def from_client_range(self, range_: types.Range) -> Range:
        return Range(self.from_client_position(range_.start), self.from_client_position(range_.end))

    def client_offset(self, position: types.Position) -> int:
        return self.offset(self.from_client_position(position))
