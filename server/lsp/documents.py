"""Open workflow documents: which URIs are ours, their text, and their analysed snapshots."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.uris import to_fs_path

from analysis.project.files import is_workflow_path
from server.lsp.positions import LineIndex

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)")
# where `str.splitlines` breaks a line and LSP does not
_NOT_LSP_BREAK = re.compile("[\v\f\x1c\x1d\x1e\x85\u2028\u2029]")

if TYPE_CHECKING:
    from analysis.checks.analyze import AnalysisResult
    from analysis.dryrun.presentation import Annotation

def is_workflow_uri(uri: str) -> bool:
    """The document selector (`analysis.project.files`), for `file:` and unsaved (`untitled:`)
    URIs."""
    return is_workflow_path(PurePosixPath(unquote(urlparse(uri).path)))


def uri_to_path(uri: str) -> str:
    """A filesystem path for analysis messages and sidecar lookup (the URI when not a file)."""
    return to_fs_path(uri) or uri


@dataclass
class Snapshot:
    """One analysed version of a document. Positions in `result` refer to `text`."""

    uri: str
    version: int
    text: str
    result: AnalysisResult
    encoding: str
    # False for a large document's diagnosis from the analysis process (`result` has its
    # diagnostics but no model); requests never serve from such a snapshot.
    has_model: bool = True
    # per rule, diagnostics the analysis process left out of `result` (see `Diagnosis`)
    omitted: dict[str, int] = field(default_factory=dict)

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.text, self.encoding, self.result.source.line_starts)

    @property
    def is_good(self) -> bool:
        """Whether the YAML parsed into a workflow model other features can serve from."""
        return self.has_model and self.result.workflow is not None


@dataclass(frozen=True)
class DryRunView:
    """A dry run's results placed in one version of a document."""

    version: int
    snapshot: Snapshot
    annotations: list[Annotation]
    stamp: int  # distinguishes runs on the same version (pull diagnostics' result id)


@dataclass
class DocumentState:
    uri: str
    version: int
    text: str
    # which didOpen this is: versions restart when a document is reopened
    opening: int = 0
    latest: Snapshot | None = None
    last_good: Snapshot | None = None
    pending: asyncio.Task[Snapshot | None] | None = field(default=None, repr=False)
    # the debounce the pending analysis is still sleeping through (0 once it is computing)
    pending_delay_ms: int = 0
    # how long the last analysis of the document's diagnostics that built on an earlier one
    # took (ms), and when the last edit came (perf_counter): how long an edit waits before the
    # next analysis (`RelaviumLanguageServer.debounce_ms`)
    last_analysis_ms: float | None = None
    edited_at: float | None = None
    # the analysis running in a thread, which cancelling `pending` does not stop
    # (an AnalysisResult, or a Diagnosis from the analysis process)
    computing: asyncio.Future[Any] | None = field(default=None, repr=False)
    # a large document's model, computed in the server when a request needs it (its
    # diagnostics come from the analysis process; see `RelaviumLanguageServer.fresh_snapshot`)
    modelling: asyncio.Task[Snapshot | None] | None = field(default=None, repr=False)
    modelling_version: int = -1
    model_computing: asyncio.Future[Any] | None = field(default=None, repr=False)
    # per question asked of the analysis process (`RelaviumLanguageServer.ask_analysis_process`),
    # the version asked about and the answer to come: requests asking the same share it
    asking: dict[Any, tuple[int, asyncio.Future[Any]]] = field(default_factory=dict, repr=False)
    # the last whole-workflow dry run, shown while `dry_run.version` is the document's
    dry_run: DryRunView | None = None
    # `text` split into lines (see `apply`), kept between edits; None until an edit needs them
    _lines: list[str] | None = field(default=None, repr=False)

    @property
    def path(self) -> str:
        return uri_to_path(self.uri)

    @property
    def current_dry_run(self) -> DryRunView | None:
        """The last dry run, until the next edit."""
        run = self.dry_run
        return run if run is not None and run.version == self.version else None

    def record(self, snapshot: Snapshot) -> None:
        """Keep a finished analysis unless a newer one already landed (or, for the same
        version, one with a model)."""
        latest = self.latest
        if (
            latest is None or snapshot.version > latest.version
            or (snapshot.version == latest.version and snapshot.has_model >= latest.has_model)
        ):
            self.latest = snapshot
        if snapshot.is_good and (
            self.last_good is None or snapshot.version >= self.last_good.version
        ):
            self.last_good = snapshot


    def apply(
        self, changes: Sequence[types.TextDocumentContentChangeEvent], encoding: str
    ) -> int:
        """Apply one didChange's events to `text` in order; returns how many events had a range
        that had to be clamped.

        pygls' own incremental sync splits lines with `str.splitlines` (so a U+2028 or form feed
        shifts every later line) and rewrites out-of-range columns oddly; this follows the LSP
        definition and clamps instead. The text's lines are kept between didChanges, so an edit
        costs time in proportion to the lines it touches, not to the document (splitting a 1 MB
        text took 40–90 ms of the event loop per keystroke): a replace-all of thousands of edits
        joins the text once, at the end, and a whole-document event is not split at all.
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
    """`DocumentState.apply` on (text, its lines or None): the new text and lines, and how many
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
    if line.isascii():
        column = min(position.character, len(line))
        return (position.line, column), position.character > len(line)
    column, clamped = _column_of_unit(line, position.character, encoding)
    return (position.line, column), clamped


def _column_of_unit(line: str, unit: int, encoding: str) -> tuple[int, bool]:
    """The code-point column of the character that client unit `unit` falls in (a unit inside
    a character snaps to its start), and whether `unit` lies past the line's end. Encodes and
    decodes in C: stepping through the characters in Python made thousands of edits on one
    long line quadratic."""
    if encoding == types.PositionEncodingKind.Utf32:
        return min(unit, len(line)), unit > len(line)
    utf8 = encoding == types.PositionEncodingKind.Utf8
    width = 1 if utf8 else 2  # bytes per unit
    codec = "utf-8" if utf8 else "utf-16-le"
    encoded = line.encode(codec, "surrogatepass")
    if unit * width >= len(encoded):
        return len(line), unit * width > len(encoded)
    start = unit * width  # back to the first byte of the character holding this unit
    if utf8:
        while start > 0 and encoded[start] & 0xC0 == 0x80:
            start -= 1
    elif 0xDC <= encoded[start + 1] <= 0xDF and start > 0 and 0xD8 <= encoded[start - 1] <= 0xDB:
        start -= 2  # the low half of a surrogate pair
    return len(encoded[:start].decode(codec, "surrogatepass")), False
