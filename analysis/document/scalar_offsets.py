"""Map each character of a decoded YAML scalar back to its place in the source.

Contract: `map_scalar(text, scalar)` re-scans the scalar's source slice by style — plain,
single-quoted (`''`), double-quoted (escapes, escaped line breaks), literal `|` and folded `>`
(chomping, indentation indicators, CRLF), with YAML's line folding — and returns
`(starts, ends)`: `starts[i]`/`ends[i]` are the document offsets of the source text that produced
decoded character `i`, and `starts[len(value)]` is where the content ends. A folded line break
maps to the break it came from, an escape to the whole escape. It returns None when the re-scan
does not reproduce `scalar.text` exactly; callers then fall back to the scalar's start.
The block-scalar scan follows libyaml's `yaml_parser_scan_block_scalar` step by step.

`ScalarText(scalar, source)` is what the model's fields build on: `value` is the decoded string;
`source_span(i, j)` maps a half-open range of it to document offsets — exact when the re-scan
reproduces the value, otherwise the scalar's start — and `decoded_index_of(offset)` maps back.
"""

from __future__ import annotations

from functools import cached_property

from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YScalar

Piece = tuple[str, int, int]  # decoded character(s), source start, source end

_SIMPLE_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85",
    "_": "\xa0", "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
# Line breaks as YAML 1.2 reads them (the reader hands libyaml NEL, LS and PS as content).
_BREAKS = "\r\n"


def map_scalar(text: str, scalar: YScalar) -> tuple[list[int], list[int]] | None:
    try:
        pieces = _scan(text, scalar)
    except (IndexError, ValueError):
        return None
    if pieces is None:
        return None
    if "".join(piece[0] for piece in pieces) != scalar.text:
        return None
    starts: list[int] = []
    ends: list[int] = []
    for chars, start, end in pieces:
        # A \U escape decodes to one character; a CRLF break to one "\n".
        for _ in chars:
            starts.append(start)
            ends.append(end)
    starts.append(pieces[-1][2] if pieces else _content_offset(text, scalar))
    return starts, ends


def _content_offset(text: str, scalar: YScalar) -> int:
    if scalar.style in ("'", '"'):
        return scalar.content_start + 1
    return scalar.content_start


def _scan(text: str, scalar: YScalar) -> list[Piece] | None:
    style = scalar.style
    if style is None:
        return _flow(text, scalar.content_start, scalar.end, None)
    if style in ("'", '"'):
        return _flow(text, scalar.content_start + 1, scalar.end - 1, style)
    return _block(text, scalar)


def _break_length(text: str, index: int) -> int:
    return 2 if text.startswith("\r\n", index) else 1


def _flow(text: str, index: int, stop: int, quote: str | None) -> list[Piece]:
    """Plain and quoted scalars: line folding, `''`, and double-quoted escapes."""
    out: list[Piece] = []
    blanks: list[Piece] = []  # whitespace that is content only if the line goes on
    while index < stop:
        ch = text[index]
        if ch in " \t":
            blanks.append((ch, index, index + 1))
            index += 1
            continue
        if ch in _BREAKS:
            blanks.clear()
            breaks = []
            while index < stop and text[index] in _BREAKS:
                length = _break_length(text, index)
                breaks.append((index, index + length))
                index += length
                while index < stop and text[index] in " \t":
                    index += 1
            if len(breaks) == 1:
                out.append((" ", *breaks[0]))
            else:
                out.extend(("\n", start, end) for start, end in breaks[1:])
            continue
        out.extend(blanks)
        blanks.clear()
        if quote == "'" and ch == "'":
            out.append(("'", index, index + 2))
            index += 2
        elif quote == '"' and ch == "\\":
            index = _escape(text, index, stop, out)
        else:
            out.append((ch, index, index + 1))
            index += 1
    out.extend(blanks)
    return out


def _escape(text: str, index: int, stop: int, out: list[Piece]) -> int:
    code = text[index + 1]
    if code in _BREAKS:
        # An escaped line break joins the lines: the break and the next line's indent vanish.
        index += 1 + _break_length(text, index + 1)
        while index < stop and text[index] in " \t":
            index += 1
        return index
    if code in _HEX_ESCAPES:
        width = _HEX_ESCAPES[code]
        digits = text[index + 2 : index + 2 + width]
        out.append((chr(int(digits, 16)), index, index + 2 + width))
        return index + 2 + width
    out.append((_SIMPLE_ESCAPES[code], index, index + 2))
    return index + 2


def _line_start(text: str, index: int) -> int:
    # The "\r" search starts after the last "\n": searching from the document's start for a
    # "\r" most files lack made every line of a block scalar cost the whole text before it.
    newline = text.rfind("\n", 0, index)
    return max(newline, text.rfind("\r", newline + 1, index)) + 1


def _block(text: str, scalar: YScalar) -> list[Piece] | None:
    index = scalar.content_start + 1
    chomping = 0
    increment = 0
    for _ in range(2):
        if index < len(text) and text[index] in "+-":
            chomping = 1 if text[index] == "+" else -1
            index += 1
        elif index < len(text) and text[index] in "123456789":
            increment = int(text[index])
            index += 1
    while index < len(text) and text[index] not in _BREAKS:
        index += 1
    if index >= len(text):
        return []
    index += _break_length(text, index)
    if not increment:
        _, _, detected = _block_breaks(text, index, 0)
        return _block_body(text, index, max(detected, 1), chomping, scalar)
    # The indicator is relative to the parent's indentation, which the tree does not record:
    # try each parent indentation and keep the one that reproduces the value.
    for parent in range(0, 64):
        pieces = _block_body(text, index, parent + increment, chomping, scalar)
        if pieces is not None and "".join(p[0] for p in pieces) == scalar.text:
            return pieces
    return None


def _block_breaks(text: str, index: int, indent: int) -> tuple[int, list[Piece], int]:
    """libyaml's scan_block_scalar_breaks: eat indentation and empty lines."""
    breaks: list[Piece] = []
    max_indent = 0
    while True:
        column = index - _line_start(text, index)
        while (not indent or column < indent) and index < len(text) and text[index] == " ":
            index += 1
            column += 1
        max_indent = max(max_indent, column)
        if index >= len(text) or text[index] not in _BREAKS:
            return index, breaks, max_indent
        length = _break_length(text, index)
        breaks.append(("\n", index, index + length))
        index += length


def _block_body(
    text: str, index: int, indent: int, chomping: int, scalar: YScalar
) -> list[Piece] | None:
    folded = scalar.style == ">"
    out: list[Piece] = []
    index, trailing, _ = _block_breaks(text, index, indent)
    leading: list[Piece] = []
    leading_blank = False
    while index < len(text) and index - _line_start(text, index) == indent:
        trailing_blank = text[index] in " \t"
        joinable = not leading_blank and not trailing_blank
        if folded and leading and leading[0][0] == "\n" and joinable:
            if not trailing:
                out.append((" ", leading[0][1], leading[0][2]))
            leading = []
        else:
            out.extend(leading)
            leading = []
        out.extend(trailing)
        leading_blank = text[index] in " \t"
        while index < len(text) and text[index] not in _BREAKS:
            out.append((text[index], index, index + 1))
            index += 1
        if index >= len(text):
            break
        length = _break_length(text, index)
        leading = [("\n", index, index + length)]
        index += length
        index, trailing, _ = _block_breaks(text, index, indent)
    if chomping != -1:
        out.extend(leading)
    if chomping == 1:
        out.extend(trailing)
    return out


class ScalarText:
    """A string scalar's decoded value with the mapping back to document offsets."""

    def __init__(self, scalar: YScalar, source: SourceText) -> None:
        self.scalar = scalar
        self.source = source
        self.value = scalar.text

    @cached_property
    def _verbatim_skip(self) -> int | None:
        """How far after the scalar's `content_start` value[0] sits when the source spells the
        value verbatim on one line (no escape, no folding): then offsets are plain arithmetic
        and the re-scan is skipped. Relative, as `_mapped` is: a scalar an incremental read
        moved (`read_yaml(..., take_over=True)`) keeps its text, so its caches stay right."""
        scalar = self.scalar
        text = self.source.text
        if scalar.style is None:
            skip = 0
            closing = ""
        elif scalar.style in ("'", '"'):
            skip = 1
            closing = scalar.style
        else:
            return None
        start = scalar.content_start + skip
        after = start + len(self.value)
        if after + len(closing) != scalar.end or not text.startswith(self.value, start):
            return None
        if closing and text[after] != closing:
            return None
        return skip

    @property
    def _verbatim_start(self) -> int | None:
        skip = self._verbatim_skip
        return None if skip is None else self.scalar.content_start + skip

    @cached_property
    def _mapped(self) -> tuple[list[int], list[int], int] | None:
        """`map_scalar`'s offsets and the `content_start` they were computed at."""
        offsets = map_scalar(self.source.text, self.scalar)
        return None if offsets is None else (*offsets, self.scalar.content_start)

    @property
    def exact(self) -> bool:
        """Whether offsets are exact (the re-scan reproduced the value)."""
        return self._verbatim_skip is not None or self._mapped is not None

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """Document offsets of the decoded range `[start, end)` (an escape maps as a whole)."""
        start = min(max(start, 0), len(self.value))
        end = min(max(end, start), len(self.value))
        verbatim = self._verbatim_start
        if verbatim is not None:
            return (verbatim + start, verbatim + end)
        if self._mapped is None:
            return (self.scalar.content_start, self.scalar.content_start)
        starts, ends, base = self._mapped
        moved = self.scalar.content_start - base
        return (starts[start] + moved, (ends[end - 1] if end > start else starts[start]) + moved)

    def decoded_index_of(self, offset: int) -> int | None:
        """The decoded index whose source covers document `offset` (for cursor → value)."""
        verbatim = self._verbatim_start
        if verbatim is not None:
            index = offset - verbatim
            return index if 0 <= index <= len(self.value) else None
        if self._mapped is None:
            return None
        starts, ends, base = self._mapped
        offset -= self.scalar.content_start - base
        for index in range(len(self.value)):
            if starts[index] <= offset < max(ends[index], starts[index] + 1):
                return index
        return len(self.value) if offset == starts[len(self.value)] else None
