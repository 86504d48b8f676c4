"""Workspace diagnostics (`relavium.diagnostics.scope: "workspace"`), on the start-up index.

After `initialized` (`start`, called by features/configuration.py) the workspace is indexed in
the background (`server.lsp.workspace_indexing`). With scope `workspace`, every workflow and
agent file it listed that is not open then gets diagnostics from its text on disk:

- analysed one file at a time, queued behind every open document's analysis (`LOW_PRIORITY`
  in the analysis queue), a large file in the analysis process as an open one is;
- a client that pulls gets them from `workspace/diagnostic` (an `unchanged` report for each of
  the `previousResultIds` still current; vscode-languageclient 11 asks again 2 s after each
  answer, lib/common/diagnostic.js `pullWorkspace`); any other client has them published as
  each file is analysed;
- an open document's diagnostics are its session's alone (`textDocument/diagnostic` or pushed):
  the workspace report leaves open documents out and nothing is published for them, so no
  client has to choose between two reports of one file;
- kept per file: the LSP diagnostics and the stamp they were made from (size and mtime on disk,
  the settings, its project's agent epoch), never a parse tree.

A workspace folder added or removed lists the files again. Closing a document reads it from
disk again (its disk diagnostics show again; a pull for the closed document answers them, as
vscode-languageclient pulls once more on close); a file deleted (watched) is cleared; switching
the scope to `open` clears every file not open. An edit to an open agent file, or an agent file
changed on disk, re-diagnoses its project's files on disk once edits pause for `QUIET_SECONDS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any
from weakref import WeakKeyDictionary

from lsprotocol import types
from pygls.uris import to_fs_path

from analysis.checks.analyze import AnalysisResult, AnalysisStopped, analyze
from analysis.document.yaml_profile import too_large
from analysis.project.files import SourceTooLarge, read_regular_file
from analysis.project.kinds import FileKind, file_kind
from analysis.project.workspace import find_project
from server.lsp.diagnostics import to_lsp, to_lsp_diagnostics
from server.lsp.documents import Snapshot
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.settings import SCOPE_WORKSPACE
from server.lsp.worker.client import WorkerLost
from server.lsp.workspace_indexing import index_workspace
from server.lsp.workspace_scan import Scan, WorkspaceFile, disk_stamp

logger = logging.getLogger("relavium-lsp")

# Added to a file's size in the analysis queue (smallest first): every open document's analysis
# goes before a file on disk.
LOW_PRIORITY = 1 << 40
# An agent edited (typed in, or changed on disk) re-diagnoses its project's files on disk once
# the edits pause this long: not once per keystroke.
QUIET_SECONDS = 0.5
# How long a workspace pull waits for the files being analysed before it answers with those done
# (the client asks again, and gets the rest then).
PULL_WAIT_SECONDS = 5.0


@dataclass(frozen=True)
class DiskReport:
    """One file's diagnostics from its text on disk."""

    stamp: tuple[Any, ...]
    result_id: str
    items: list[types.Diagnostic]


class WorkspaceDiagnostics:
    def __init__(self, ls: RelaviumLanguageServer) -> None:
        self.ls = ls
        self.files: dict[str, WorkspaceFile] = {}  # what the index listed, by URI
        self.indexed = asyncio.Event()
        self.reports: dict[str, DiskReport] = {}
        # pushed: the result id of the disk report each URI's published diagnostics are
        self.shown: dict[str, str] = {}
        # pulled: URIs whose diagnostics the next workspace report clears
        self.cleared: set[str] = set()
        # project folder → how often its agents changed (a part of its files' stamps)
        self.epochs: dict[str, int] = {}
        self._ids = itertools.count(1)
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._quiet_until = 0.0
        self._roots: list[str] = []  # the walked folders, links resolved
        self._task: asyncio.Task[None] | None = None
        self._rescanning: asyncio.Task[None] | None = None
        self._rescan_again = False

    @property
    def active(self) -> bool:
        return self.ls.settings.diagnostics_scope == SCOPE_WORKSPACE and self.indexed.is_set()

    # -- what the server tells it ---------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        try:
            self._take(await index_workspace(self.ls, start_up=True))
        except Exception:
            logger.exception("workspace indexing failed")
            self.ls.log_error("relavium-lsp: indexing the workspace failed; see the server's "
                              "stderr (open documents are diagnosed as before)")
        # set even after a failure (with no files): a workspace pull waits for it
        self.indexed.set()
        await self.ls.settled_settings()
        self.wake(quiet=False)
        try:
            await self._pass_loop()
        except Exception:
            logger.exception("workspace diagnostics failed")
            self.ls.log_error("relavium-lsp: workspace diagnostics stopped; see the server's "
                              "stderr (open documents are diagnosed as before)")

    def wake(self, quiet: bool) -> None:
        """Look again at every file not open (after `QUIET_SECONDS` of calm when `quiet`)."""
        if quiet:
            self._quiet_until = asyncio.get_running_loop().time() + QUIET_SECONDS
        self._idle.clear()
        self._wake.set()

    def agents_changed(self, project: str | None) -> None:
        if project is not None:
            self.epochs[project] = self.epochs.get(project, 0) + 1
            self.wake(quiet=True)

    def analysed(self, snapshot: Snapshot) -> None:
        self.shown.pop(snapshot.uri, None)  # the client shows the open document's now
        if snapshot.result.kind is FileKind.AGENT:
            path = to_fs_path(snapshot.uri) if snapshot.uri.startswith("file:") else None
            self.agents_changed(find_project(path) if path else None)

    def closed(self, uri: str) -> None:
        self.shown.pop(uri, None)  # features/diagnostics.py cleared what it had published
        file = self.files.get(uri)
        if file is not None and file.kind is FileKind.AGENT:
            self.agents_changed(file.project)
        if file is not None:
            self.wake(quiet=False)

    def files_changed(self, events: Sequence[types.FileEvent]) -> None:
        """Watched files changed on disk."""
        created = False
        for event in events:
            path = to_fs_path(event.uri) if event.uri.startswith("file:") else None
            kind = file_kind(PurePath(path)) if path else None
            if kind is FileKind.AGENT:
                self.agents_changed(find_project(path) if path else None)
            if event.type == types.FileChangeType.Deleted:
                self.forget(event.uri)
            elif event.type == types.FileChangeType.Created and kind is not None:
                created = True
        if created:
            self.rescan()
        self.wake(quiet=True)

    def rescan(self) -> None:
        """List the workspace's files again (a file created, the excludes changed), once more
        after the listing under way when one is."""
        if not self.indexed.is_set():
            return  # the start-up indexing lists them
        self._rescan_again = True
        if self._rescanning is None or self._rescanning.done():
            self._rescanning = asyncio.ensure_future(self._rescan())

    async def _rescan(self) -> None:
        while self._rescan_again:
            self._rescan_again = False
            try:
                self._take(await index_workspace(self.ls, start_up=False))
            except Exception:
                logger.exception("listing the workspace's files failed")
            self.wake(quiet=False)

    def settings_changed(self) -> None:
        if self.active:
            self.rescan()  # the project configuration's excludes may differ
            return
        for uri in list(self.reports):
            self._clear(uri)
        if self.ls.pull_diagnostics and self.cleared:
            self.ls.workspace_diagnostic_refresh(None)

    def forget(self, uri: str) -> None:
        """The file is gone: drop it, and clear what was shown of it."""
        self.files.pop(uri, None)
        self._clear(uri)

    def _clear(self, uri: str) -> None:
        """Clear the file's disk diagnostics wherever the client shows them."""
        if self.reports.pop(uri, None) is not None and self.ls.pull_diagnostics:
            self.cleared.add(uri)
        if self.shown.pop(uri, None) is not None and uri not in self.ls.documents:
            self.ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def _take(self, scan: Scan) -> None:
        for uri in [uri for uri in self.files if uri not in scan.files]:
            self.forget(uri)
        self.files = dict(scan.files)
        self._roots = [os.path.realpath(root) for root in scan.roots]

    # -- the background pass ------------------------------------------------------------------

    async def _pass_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            while (delay := self._quiet_until - loop.time()) > 0:
                await asyncio.sleep(delay)
            self._wake.clear()
            if self.active:
                await self._diagnose_changed()
            if not self._wake.is_set():
                self._idle.set()

    async def _diagnose_changed(self) -> None:
        """Every file not open whose stamp differs from its report's, one at a time; stops when
        woken again (what changed may be any of them)."""
        waiting = [file for uri, file in self.files.items() if uri not in self.ls.documents]
        stamps = await asyncio.to_thread(lambda: {file.uri: disk_stamp(file.path)
                                                  for file in waiting})
        for file in waiting:
            if self._wake.is_set() or not self.active:
                return
            await self.refresh(file, stamps[file.uri])

    async def refresh(self, file: WorkspaceFile, disk: tuple[int, int] | None) -> None:
        """Bring the file's report up to date with `disk` (its stamp now) and show it."""
        ls = self.ls
        if disk is None:
            self.forget(file.uri)
            return
        # the settings themselves, not their generation: a configuration answer that changes
        # nothing analyses nothing again
        stamp = (disk, ls.settings, self.epochs.get(file.project or "", 0))
        report = self.reports.get(file.uri)
        if report is None or report.stamp != stamp:
            try:
                items = await self._diagnose(file)
            except AnalysisStopped:
                return  # opened meanwhile, or the scope changed
            if file.uri not in self.files:
                return  # deleted meanwhile
            if items is None:
                self._clear(file.uri)
                return
            same = report is not None and report.items == items
            report = self.reports[file.uri] = DiskReport(
                stamp, report.result_id if same and report else f"w{next(self._ids)}", items)
        if not ls.pull_diagnostics and file.uri not in ls.documents and \
                self.shown.get(file.uri) != report.result_id and ls.settings_settled.is_set():
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=file.uri, diagnostics=report.items))
            self.shown[file.uri] = report.result_id

    async def _diagnose(self, file: WorkspaceFile) -> list[types.Diagnostic] | None:
        """The file's diagnostics from its text on disk; None when it cannot be read (nothing is
        known of it). Raises AnalysisStopped when it was opened meanwhile."""
        ls = self.ls
        if not self._inside(file.path):
            return None  # a link swapped for one out of the workspace since the walk
        try:
            text = await asyncio.to_thread(read_regular_file, file.path)
        except SourceTooLarge as error:
            return await asyncio.to_thread(self._too_large, file, error.size)
        except (OSError, UnicodeDecodeError):
            return None

        def superseded() -> bool:  # read from an analysis thread
            return file.uri in ls.documents or not self.active

        settings, encoding = ls.settings, ls.position_encoding

        def converted(result: AnalysisResult, omitted: dict[str, int]) -> list[types.Diagnostic]:
            snapshot = Snapshot(file.uri, 0, text, result, encoding, has_model=False,
                                omitted=omitted)
            return to_lsp_diagnostics(snapshot, settings)

        if ls.in_analysis_process(text):
            with contextlib.suppress(WorkerLost):
                diagnosis = await ls.analysis_process.submit(text, file.path, superseded)
                return await asyncio.to_thread(converted, diagnosis.result, diagnosis.omitted)
        index = ls.workspace_index(file.uri)
        return await ls.analyses.submit(LOW_PRIORITY + len(text), lambda: converted(
            analyze(text, file.path, superseded, workspace=index), {}))

    def _too_large(self, file: WorkspaceFile, size: str) -> list[types.Diagnostic]:
        """What an open file over the size limit shows: the refusal, at its start."""
        empty = analyze("", file.path)
        refusal = too_large(empty.source, size)
        severity = self.ls.settings.severity_for(refusal.rule, refusal.severity)
        snapshot = Snapshot(file.uri, 0, "", empty, self.ls.position_encoding)
        return [] if severity is None else [to_lsp(snapshot, refusal, severity)]

    def _inside(self, path: str) -> bool:
        real = os.path.realpath(path)
        return any(os.path.commonpath([real, root]) == root for root in self._roots)

    # -- what clients ask -----------------------------------------------------------------------

    async def settled(self) -> None:
        """Once every file not open has a current report (or `PULL_WAIT_SECONDS` passed)."""
        self.wake(quiet=False)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), PULL_WAIT_SECONDS)

    async def workspace_report(self, previous: dict[str, str]) -> types.WorkspaceDiagnosticReport:
        ls = self.ls
        items: list[types.WorkspaceDocumentDiagnosticReport] = [
            types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=[], version=None)
            for uri in sorted(self.cleared) if uri not in ls.documents]
        self.cleared.clear()
        if ls.settings.diagnostics_scope == SCOPE_WORKSPACE:
            await self.indexed.wait()
            await self.settled()
        if not self.active:
            return types.WorkspaceDiagnosticReport(items=items)
        for uri, report in self.reports.items():
            if uri in ls.documents:
                continue
            if previous.get(uri) == report.result_id:
                items.append(types.WorkspaceUnchangedDocumentDiagnosticReport(
                    uri=uri, result_id=report.result_id, version=None))
            else:
                items.append(types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, items=report.items, result_id=report.result_id, version=None))
        return types.WorkspaceDiagnosticReport(items=items)

    async def closed_document_report(self, uri: str) -> DiskReport | None:
        """The disk report of a file that is not open, brought up to date: what a pull for a
        document just closed answers (vscode-languageclient pulls once more on close)."""
        file = self.files.get(uri)
        if not self.active or file is None or uri in self.ls.documents:
            return None
        await self.refresh(file, await asyncio.to_thread(disk_stamp, file.path))
        return self.reports.get(uri)


_states: WeakKeyDictionary[RelaviumLanguageServer, WorkspaceDiagnostics] = WeakKeyDictionary()


def of(ls: RelaviumLanguageServer) -> WorkspaceDiagnostics:
    return _states[ls]


def register(ls: RelaviumLanguageServer) -> None:
    state = _states[ls] = WorkspaceDiagnostics(ls)
    ls.on_analysis(state.analysed)
    ls.on_close(state.closed)
    ls.on_settings_changed(state.settings_changed)

    @ls.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @guarded()
    def folders_changed(ls: RelaviumLanguageServer,
                        params: types.DidChangeWorkspaceFoldersParams) -> None:
        of(ls).rescan()  # pygls has updated `ls.workspace.folders` before calling this

    @ls.feature(types.WORKSPACE_DIAGNOSTIC)
    @guarded(empty=lambda: types.WorkspaceDiagnosticReport(items=[]))
    async def workspace_diagnostic(ls: RelaviumLanguageServer,
                                   params: types.WorkspaceDiagnosticParams
                                   ) -> types.WorkspaceDiagnosticReport:
        previous = {item.uri: item.value for item in params.previous_result_ids}
        return await of(ls).workspace_report(previous)
