"""The client's edits applied to a document's text, as LSP defines them.

pygls' own incremental sync splits lines with `str.splitlines` (so a U+2028 or form feed shifts
every later line) and rewrites out-of-range columns oddly; this follows the LSP definition and
clamps instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types

from analysis.document.source import CodeUnits

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)")
# where `str.splitlines` breaks a line and LSP does not
_NOT_LSP_BREAK = re.compile("[\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


class SyncedText:
    """A document's text, and its lines while edits need them."""

    def __init__(self, text: str) -> None:
        self.text = text
        # `text` split into lines (see `apply`), kept between edits; None until an edit needs them
        self._lines: list[str] | None = None

    def apply(
        self, changes: Sequence[types.TextDocumentContentChangeEvent], encoding: str
    ) -> int:
        """Apply one didChange's events to `text` in order; returns how many events had a range
        that had to be clamped.

        The text's lines are kept between didChanges, so an edit costs time in proportion to the
        lines it touches, not to the document (splitting a 1 MB text took 40–90 ms of the event
        loop per keystroke): a replace-all of thousands of edits joins the text once, at the end,
        and a whole-document event is not split at all.
        """
        text, lines, clamped = _apply_changes(self.text, self._lines, changes, encoding)
        self.text, self._lines = text, lines
        return clamped


def _apply_changes(
    text: str,
    lines: list[str] | None,
    changes: Sequence[types.TextDocumentContentChangeEvent],
    encoding: str,
) -> tuple[str, list[str] | None, int]:
    """`SyncedText.apply` on (text, its lines or None): the new text and lines, and how many
    ranges were clamped. `lines` is changed in place."""
    clamped = 0
    edited = False
    for change in changes:
        if isinstance(change, types.TextDocumentContentChangeWholeDocument):
            text, lines, edited = change.text, None, False
            continue
        if lines is None:
            lines = _split_lines(text)
        edited = True
        start, start_clamped = _locate(lines, change.range.start, encoding)
        end, end_clamped = _locate(lines, change.range.end, encoding)
        if end < start:
            start, end, end_clamped = end, start, True
        clamped += start_clamped or end_clamped
        (first_line, first_column), (last_line, last_column) = start, end
        # A "\r" ending the line before, followed by an inserted "\n", becomes one line break.
        joins = first_line > 0 and lines[first_line - 1].endswith("\r")
        first = first_line - 1 if joins else first_line
        segment = (
            "".join(lines[first:first_line]) + lines[first_line][:first_column] + change.text
            + lines[last_line][last_column:]
        )
        replacement = _split_lines(segment)
        if last_line + 1 < len(lines):
            replacement.pop()  # the segment ends with a line break: no partial last line
        lines[first : last_line + 1] = replacement
    if edited:
        assert lines is not None
        text = "".join(lines)
    return text, lines, clamped


def _split_lines(text: str) -> list[str]:
    """The text's lines, each with its line break (LSP's: `\n`, `\r\n`, `\r`); the last one
    has none and may be empty."""
    if _NOT_LSP_BREAK.search(text) is None:
        # `str.splitlines` breaks where LSP does when none of its other breaks occur, and runs
        # in C: 2 ms for 1 MB where the pattern below takes 40-90 ms
        lines = text.splitlines(keepends=True)
        if not lines or lines[-1].endswith(("\n", "\r")):
            lines.append("")
        return lines
    lines = _LINE.findall(text)
    lines.append(text[sum(map(len, lines)) :])
    return lines


def _locate(
    lines: list[str], position: types.Position, encoding: str
) -> tuple[tuple[int, int], bool]:
    """A client position as (line, code-point column), clamped into the text, and whether it
    had to be."""
    if position.line >= len(lines):
        return (len(lines) - 1, len(lines[-1])), True
    line = lines[position.line].rstrip("\r\n")
    units = CodeUnits(line, encoding)
    column = units.code_points(0, len(line), position.character)
    return (position.line, column), position.character > units.units(0, len(line))
