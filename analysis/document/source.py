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
import operator
import re
from collections.abc import Callable, Iterator
from functools import cached_property
from itertools import accumulate, repeat

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


# The characters that take more than one code unit, by encoding (LSP's names): one pattern per
# unit beyond the first (UTF-8: from U+0080 two bytes, from U+0800 three, from U+10000 four).
# Compiled on first use: each pattern over so wide a range takes ~10 ms to compile, and an
# ASCII text or another encoding needs none of them.
_ASTRAL = "[\U00010000-\U0010ffff]"
_EXTRA_UNITS = {
    "utf-16": (_ASTRAL,),
    "utf-8": ("[\x80-\U0010ffff]", "[\u0800-\U0010ffff]", _ASTRAL),
    "utf-32": (),
}


class CodeUnits:
    """Code-unit lengths of spans of one text in O(log n) each, after one scan for the characters
    that take more than one unit: converting every position on a long line character by
    character made many positions on it (diagnostics, tokens, hints) quadratic."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        patterns = () if text.isascii() else _EXTRA_UNITS.get(encoding, _EXTRA_UNITS["utf-16"])
        # `map` over the method runs in C: the server builds one of a line at each edit on it
        found = (list(map(re.Match.start, re.finditer(pattern, text))) for pattern in patterns)
        # the offsets of the characters taking more than 1, 2, 3 units (none: one unit each)
        self._wide = [wide for wide in found if wide]

    def units(self, start: int, end: int) -> int:
        """Code units of `text[start:end]`."""
        return end - start + sum(
            bisect.bisect_left(wide, end) - bisect.bisect_left(wide, start) for wide in self._wide
        )

    def code_points(self, start: int, end: int, units: int) -> int:
        """How many code points of `text[start:end]` end at or before `units` code units: the
        column of the character that unit falls in (a unit inside a character snaps to its
        start), or `end - start` past the span."""
        if not self._wide:
            return min(max(units, 0), end - start)
        target = self.units(0, start) + max(units, 0)  # in units from the text's start
        starts = self._wide_starts
        last = bisect.bisect_right(starts, target) - 1  # the last wide character not after it
        if last < 0:
            column = target  # every character before it takes one unit
        else:
            wide_at = self._wide[0][last]
            after = starts[last] + self.units(wide_at, wide_at + 1)
            # inside that character, or in the run of one-unit characters after it
            column = wide_at if target < after else wide_at + 1 + target - after
        return min(column, end) - start

    @cached_property
    def _wide_starts(self) -> list[int]:
        """The unit offset of each character taking more than one unit (`_wide[0]`, which holds
        the others' too), computed in C: a conversion then costs a bisection, in C as well."""
        first = self._wide[0]
        # before the j-th: its offset, one extra unit for each of the j before it, and those of
        # the characters wider still
        starts: Iterator[int] = map(operator.add, first, range(len(first)))
        for wider in self._wide[1:]:
            starts = map(operator.add, starts, map(bisect.bisect_left, repeat(wider), first))
        return list(starts)


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
        return min(start + max(position.character, 0), self.line_end(position.line))

    def line_end(self, line: int) -> int:
        """The offset where the line's content ends (before its line break)."""
        return line_end(self.text, self.line_starts, line)

    def line_text(self, line: int) -> str:
        """The text of a line without its line break."""
        return self.text[self.line_starts[line] : self.line_end(line)]

    @cached_property
    def _utf16(self) -> CodeUnits:
        return CodeUnits(self.text)

    def utf16_character(self, position: Position) -> int:
        """The UTF-16 column of a code-point position."""
        if self._ascii or position.line >= len(self.line_starts):
            return position.character
        start = self.line_starts[position.line]
        end = min(start + max(position.character, 0), self.line_end(position.line))
        return self._utf16.units(start, end)


def line_end(text: str, starts: list[int], line: int) -> int:
    """The offset where line `line` (of `text`, whose line starts are `starts`) ends, before its
    line break."""
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    if end > starts[line] and text[end - 1] == "\n":
        end -= 1
    if end > starts[line] and text[end - 1] == "\r":
        end -= 1
    return end


# Texts are compared a chunk at a time in C (one character at a time in Python took
# milliseconds for a 200 KB document); 64 Ki characters, as each comparison has a fixed cost too:
# 60 µs for an edit in the middle of a 1,000-node document, 110 µs with chunks of 4 Ki.
_CHUNK = 64 * 1024


def changed_span(old: str, new: str) -> tuple[int, int, int]:
    """The one span an edit replaced: (start, old_end, new_end) with
    `new == old[:start] + new[start:new_end] + old[old_end:]`, after the longest common prefix
    and then the longest common suffix of what is left."""
    limit = min(len(old), len(new))
    # `new`'s span is copied, `old`'s compared in place
    start = _common_length(lambda low, high: old.startswith(new[low:high], low), limit)
    old_end, new_end = len(old), len(new)

    def same_ends(low: int, high: int) -> bool:  # spans counted from the ends
        return old.endswith(new[new_end - high : new_end - low], 0, old_end - low)

    suffix = _common_length(same_ends, limit - start)
    return start, old_end - suffix, new_end - suffix


def _common_length(same: Callable[[int, int], bool], limit: int) -> int:
    """The largest n ≤ `limit` for which spans [0, n) match, given `same(low, high)`: whether
    spans [low, high) match."""
    length, step = 0, _CHUNK
    while length < limit:
        high = min(length + step, limit)
        if same(length, high):
            length = high
        elif high - length == 1:
            break
        else:  # the first difference is within the next `step`: look at half of it
            step = (high - length) // 2
    return length
