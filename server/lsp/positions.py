"""Convert between analysis positions (code points) and LSP positions (the negotiated encoding).

Lines follow the LSP definition (`\\n`, `\\r\\n`, `\\r`), not `str.splitlines`, which also breaks
on form feeds and U+2028 and would disagree with every client about line numbers.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import cached_property

from lsprotocol import types

from analysis.diagnostics import Position, Range
from analysis.document.source import CodeUnits, line_end, line_starts


class LineIndex:
    """One text's line starts, for conversions in both directions and for offsets. A conversion
    costs O(log n) (`CodeUnits`), not the length of the line it is on."""

    def __init__(
        self, text: str, encoding: str = types.PositionEncodingKind.Utf16,
        starts: list[int] | None = None,
    ) -> None:
        """`starts`: the text's line starts when they are known already (the `SourceText` of an
        analysis of `text` has them; finding them again took 33 ms for a 1 MB document)."""
        self.text = text
        self.encoding = encoding
        self._known_starts = starts

    @cached_property
    def _line_starts(self) -> list[int]:
        return self._known_starts if self._known_starts is not None else line_starts(self.text)

    @cached_property
    def _units(self) -> CodeUnits:
        return CodeUnits(self.text, self.encoding)

    @property
    def line_count(self) -> int:
        return len(self._line_starts)

    def _line_end(self, line: int) -> int:
        return line_end(self.text, self._line_starts, line)

    def line_text(self, line: int) -> str:
        """The line's content without its line break."""
        return self.text[self._line_starts[line] : self._line_end(line)]

    def client_line_length(self, line: int) -> int:
        """The line's length in client units, without its line break."""
        return self._units.units(self._line_starts[line], self._line_end(line))

    def offset(self, position: Position) -> int:
        """Code-point offset of an analysis position, clamped into the text."""
        if position.line < 0:
            return 0
        if position.line >= self.line_count:
            return len(self.text)
        start = self._line_starts[position.line]
        return min(start + max(position.character, 0), self._line_end(position.line))

    def line_at(self, offset: int) -> int:
        """The line of a code-point offset, clamped into the text."""
        return bisect_right(self._line_starts, min(max(offset, 0), len(self.text))) - 1

    def position_at(self, offset: int) -> Position:
        offset = min(max(offset, 0), len(self.text))
        line = bisect_right(self._line_starts, offset) - 1
        start = self._line_starts[line]
        return Position(line, min(offset, self._line_end(line)) - start)

    def client_point(self, offset: int) -> tuple[int, int]:
        """A code-point offset (clamped into the text) as (line, character in client units),
        without building positions (a large outline or token list converts tens of thousands)."""
        offset = min(max(offset, 0), len(self.text))
        line = self.line_at(offset)
        start = self._line_starts[line]
        return line, self._units.units(start, min(offset, self._line_end(line)))

    def to_client_position(self, position: Position) -> types.Position:
        """Analysis (code points) → client units; out-of-range positions clamp to the text."""
        offset = self.offset(position)
        clamped = self.position_at(offset)
        start = self._line_starts[clamped.line]
        return types.Position(line=clamped.line,
                              character=self._units.units(start, start + clamped.character))

    def to_client_range(self, range_: Range) -> types.Range:
        return types.Range(
            start=self.to_client_position(range_.start), end=self.to_client_position(range_.end)
        )

    def from_client_position(self, position: types.Position) -> Position:
        """Client units → analysis position. Clamps past-the-end lines and columns, and a column
        inside a surrogate pair (or UTF-8 sequence) snaps to the character's start."""
        if position.line >= self.line_count:
            last = self.line_count - 1
            return Position(last, self._line_end(last) - self._line_starts[last])
        start = self._line_starts[position.line]
        column = self._units.code_points(start, self._line_end(position.line), position.character)
        return Position(position.line, column)

    def from_client_range(self, range_: types.Range) -> Range:
        return Range(self.from_client_position(range_.start), self.from_client_position(range_.end))

    def client_offset(self, position: types.Position) -> int:
        return self.offset(self.from_client_position(position))
