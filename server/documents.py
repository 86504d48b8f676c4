"""Open workflow documents: which URIs are ours, their text, and their analysed snapshots."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.uris import to_fs_path

from analysis.files import is_workflow_path
from server.positions import LineIndex

if TYPE_CHECKING:
    from analysis import AnalysisResult
    from analysis.workflow_run import Annotation

def is_workflow_uri(uri: str) -> bool:
    """The document selector (`analysis.files`), for `file:` and unsaved (`untitled:`) URIs."""
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

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.text, self.encoding)

    @property
    def is_good(self) -> bool:
        """Whether the YAML parsed into a workflow model other features can serve from."""
        return self.result.workflow is not None


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
    # the analysis running in a thread, which cancelling `pending` does not stop
    computing: asyncio.Future[AnalysisResult] | None = field(default=None, repr=False)
    # the last whole-workflow dry run, shown while `dry_run.version` is the document's
    dry_run: DryRunView | None = None

    @property
    def path(self) -> str:
        return uri_to_path(self.uri)

    @property
    def current_dry_run(self) -> DryRunView | None:
        """The last dry run, until the next edit."""
        run = self.dry_run
        return run if run is not None and run.version == self.version else None

    def record(self, snapshot: Snapshot) -> None:
        """Keep a finished analysis unless a newer one already landed."""
        if self.latest is None or snapshot.version >= self.latest.version:
            self.latest = snapshot
        if snapshot.is_good and (
            self.last_good is None or snapshot.version >= self.last_good.version
        ):
            self.last_good = snapshot


def apply_change(
    text: str, change: types.TextDocumentContentChangeEvent, encoding: str
) -> tuple[str, bool]:
    """Apply one didChange event; returns the new text and whether its range had to be clamped.

    pygls' own incremental sync splits lines with `str.splitlines` (so a U+2028 or form feed
    shifts every later line) and rewrites out-of-range columns oddly; this follows the LSP
    definition and clamps instead.
    """
    if isinstance(change, types.TextDocumentContentChangeWholeDocument):
        return change.text, False
    index = LineIndex(text, encoding)
    start = index.client_offset(change.range.start)
    end = index.client_offset(change.range.end)
    clamped = _out_of_range(index, change.range.start) or _out_of_range(index, change.range.end)
    if end < start:
        start, end, clamped = end, start, True
    return text[:start] + change.text + text[end:], clamped


def _out_of_range(index: LineIndex, position: types.Position) -> bool:
    return (
        position.line >= index.line_count
        or position.character > index.client_line_length(position.line)
    )
