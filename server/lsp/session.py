"""One open workflow document's session: its text and version, its analysed snapshots, and the
state machine that analyses each version (debounce, schedule, cancel, a model on demand).

The server (`server.lsp.language_server`) keeps the sessions of the open documents and what they
share; a session reaches it only through `SessionHost`.

A version is analysed once, and a document never has two analyses running: an edit cancels the
pending analysis and schedules the next after a debounce (`debounce_ms`); a superseded analysis
already computing stops at its next checkpoint, and the next one waits for that. A small document
is analysed in the server's analysis threads (`server.lsp.analysis_queue`), model and diagnostics
at once; a large one's diagnostics come from the analysis process (`server.lsp.worker`), and its
model is computed here only when a request needs it (`fresh_snapshot`).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Sequence
from typing import Any, Protocol

from lsprotocol import types

from analysis.checks.analyze import AnalysisStopped, analyze
from analysis.project.workspace import WorkspaceIndex
from server.lsp.analysis_queue import AnalysisQueue
from server.lsp.document_uris import uri_to_path
from server.lsp.documents import DryRunView, Snapshot
from server.lsp.settings import DEFAULT_DEBOUNCE_MS, Settings
from server.lsp.text_sync import SyncedText
from server.lsp.worker.client import AnalysisProcess, WorkerLost
from server.lsp.worker.wire import Diagnosis, Question

logger = logging.getLogger("relavium-lsp")


class SessionHost(Protocol):
    """What a session needs of the server: what all documents share."""

    settings: Settings
    analyses: AnalysisQueue
    analysis_process: AnalysisProcess

    @property
    def position_encoding(self) -> str: ...

    def workspace_index(self, uri: str) -> WorkspaceIndex | None:
        """The agent index of the project the document is in, or None (judged alone)."""

    def in_analysis_process(self, text: str) -> bool:
        """Whether this text's diagnostics are computed in the analysis process."""

    def is_open(self, session: Session) -> bool:
        """Whether `session` is still the open one of its document."""

    def analysed(self, snapshot: Snapshot) -> None:
        """Tell the listeners of a finished analysis of the document's current version."""

    def log_warning(self, message: str) -> None: ...

    def log_error(self, message: str) -> None: ...


class DocumentClosed(Exception):
    """The session's document was closed while it was asked for an analysis (and may have been
    opened again, in a session of its own)."""


class Session:
    def __init__(
        self, host: SessionHost, uri: str, version: int, text: str, opening: int = 0
    ) -> None:
        self._host = host
        self.uri = uri
        self.version = version
        self._text = SyncedText(text)
        # which didOpen this is: versions restart when a document is reopened
        self.opening = opening
        self.latest: Snapshot | None = None
        self.last_good: Snapshot | None = None
        self.pending: asyncio.Task[Snapshot | None] | None = None
        # the debounce the pending analysis is still sleeping through (0 once it is computing)
        self.pending_delay_ms = 0
        # how long the last analysis of the document's diagnostics that built on an earlier one
        # took (ms), and when the last edit came (perf_counter): how long an edit waits before
        # the next analysis (`debounce_ms`)
        self.last_analysis_ms: float | None = None
        self.edited_at: float | None = None
        # the analysis running in a thread, which cancelling `pending` does not stop
        # (an AnalysisResult, or a Diagnosis from the analysis process)
        self._computing: asyncio.Future[Any] | None = None
        # a large document's model, computed in the server when a request needs it (its
        # diagnostics come from the analysis process; see `fresh_snapshot`)
        self._modelling: asyncio.Task[Snapshot | None] | None = None
        self._modelling_version = -1
        self._model_computing: asyncio.Future[Any] | None = None
        # per question asked of the analysis process (`ask_analysis_process`), the version asked
        # about and the answer to come: requests asking the same share it
        self._asking: dict[Any, tuple[int, asyncio.Future[Any]]] = {}
        # the last whole-workflow dry run, shown while `dry_run.version` is the document's
        self.dry_run: DryRunView | None = None
        # bumped when an agent file the document may use changed (`reanalyze`): the same version
        # is analysed again, and `latest` is current only once `latest_generation` is this
        self.generation = 0
        self.latest_generation = 0

    @property
    def text(self) -> str:
        return self._text.text

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

    # -- what the client does ------------------------------------------------------------------

    def open(self) -> None:
        self.schedule(delay_ms=0)

    def change(
        self, changes: Sequence[types.TextDocumentContentChangeEvent], version: int,
        encoding: str,
    ) -> int:
        """Apply one didChange (see `SyncedText.apply`) and schedule the new version's analysis
        after its debounce; returns how many events had a range that had to be clamped."""
        clamped = self._text.apply(changes, encoding)
        self.version = version
        now = time.perf_counter()
        delay_ms = self.debounce_ms(now)
        self.edited_at = now
        self.schedule(delay_ms=delay_ms)
        return clamped

    def debounce_ms(self, now: float) -> int:
        """How long an edit made at `now` waits before the document is analysed again:
        `debounceMs` when it is set. By default, waiting spares analysing versions that are
        typed over, which is worth at most what such an analysis costs (`limit`: the document's
        last analysis that built on an earlier one, at most `DEFAULT_DEBOUNCE_MS`):
        - in a burst (the edit before came less than `limit` ago), an edit waits twice the gap
          since the one before, at most `limit`: the next keystroke, if any, comes within that;
        - after a pause, an edit is analysed at once (waiting after each one about doubled
          edit → diagnostics at 1,000 nodes), unless an analysis takes longer than
          `DEFAULT_DEBOUNCE_MS`: if that edit starts a burst, its analysis runs on to its next
          checkpoint and holds up the burst's last version by more than the wait it saved
          (bench/yamlls.py, 5,000 nodes).
        The first analysis after opening is cold (no earlier result to build on, empty caches),
        several times an edit's, so it does not set `limit` (`last_analysis_ms`)."""
        configured = self._host.settings.debounce_ms
        if configured is not None:
            return configured
        spent = self.last_analysis_ms
        limit = DEFAULT_DEBOUNCE_MS if spent is None else min(DEFAULT_DEBOUNCE_MS, spent)
        gap_ms = math.inf if self.edited_at is None else (now - self.edited_at) * 1000
        if gap_ms < limit:
            return math.ceil(min(limit, 2 * gap_ms))
        return 0 if spent is None or spent <= DEFAULT_DEBOUNCE_MS else DEFAULT_DEBOUNCE_MS

    def reanalyze(self, delay_ms: int) -> None:
        """Analyse the current version again: what it resolves across files has changed."""
        self.generation += 1
        self.schedule(delay_ms=delay_ms)

    @property
    def latest_is_current(self) -> bool:
        latest = self.latest
        return latest is not None and latest.version == self.version and \
            self.latest_generation == self.generation

    def save(self) -> None:
        """Saving flushes a pending debounce; an analysis of the saved version that is already
        running is left to finish (restarting it analysed that version a second time)."""
        if self.latest_is_current:
            return
        if self.pending is not None and not self.pending.done() and not self.pending_delay_ms:
            return
        self.schedule(delay_ms=0)

    def close(self) -> None:
        """Stop the analyses of the closed document (the server has let go of it)."""
        for task in (self.pending, self._modelling):
            if task is not None:
                task.cancel()
        self._host.analysis_process.cancel_superseded()

    # -- what requests ask for -----------------------------------------------------------------

    async def fresh_snapshot(self, *, model: bool, debounced: bool) -> Snapshot | None:
        """See `RelaviumLanguageServer.fresh_snapshot`. Raises DocumentClosed when the document
        was closed while the analysis it waited for was cancelled."""
        while True:
            latest = self.latest
            if latest is not None and self.latest_is_current and (
                latest.has_model or not model
            ):
                return latest
            if model and self._host.in_analysis_process(self.text):
                task = self._model_task()
            else:
                if self.pending is None or self.pending.done() or (
                    self.pending_delay_ms and not debounced
                ):
                    self.schedule(delay_ms=0)
                assert self.pending is not None
                task = self.pending
            try:
                # shield: a caller's cancellation must not cancel the shared analysis
                snapshot = await asyncio.shield(task)
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if task.cancelled() and not (current and current.cancelling()):
                    # a newer edit superseded that analysis; wait for the next one
                    if not self._host.is_open(self):
                        raise DocumentClosed from None
                    continue
                raise
            if snapshot is None or snapshot.version == self.version:
                return snapshot

    async def ask_analysis_process(self, question: Question) -> tuple[Snapshot, Any] | None:
        """See `RelaviumLanguageServer.ask_analysis_process`. Raises DocumentClosed when the
        document was closed while the question was answered about a superseded version."""
        while self._host.in_analysis_process(self.text):
            version, text = self.version, self.text

            def superseded(version: int = version) -> bool:
                return self.version != version or not self._host.is_open(self)

            shared = self._asking.get(question)
            if shared is not None and shared[0] == version and not shared[1].cancelled():
                asked = shared[1]
            else:
                asked = self._host.analysis_process.ask(text, self.path, superseded, question)
                asked.add_done_callback(_take_outcome)  # when every asker is gone
                self._asking[question] = (version, asked)
            try:
                # shielded: one request cancelled must not cancel the others' answer
                answer = await asyncio.shield(asked)
            except AnalysisStopped:
                if not self._host.is_open(self):
                    raise DocumentClosed from None
                continue  # a newer version came: ask about that one
            except WorkerLost:
                return None
            diagnosis = answer.diagnosis
            # the text asked about, not its copy from the analysis process: a view compares it
            # with the live text, at once when they are the same object
            answered = text if answer.current else diagnosis.result.source.text
            snapshot = Snapshot(self.uri, version, answered, diagnosis.result,
                                self._host.position_encoding, has_model=False,
                                omitted=diagnosis.omitted)
            if answer.current:
                self.record(snapshot)
            return snapshot, answer.value
        return None

    # -- the analyses --------------------------------------------------------------------------

    def schedule(self, delay_ms: int) -> None:
        """(Re)start the document's debounced analysis; a newer edit restarts the timer."""
        if self.pending is not None and not self.pending.done():
            self.pending.cancel()
        self._host.analysis_process.cancel_superseded()
        self.pending = asyncio.ensure_future(self._analyze_later(delay_ms))
        self.pending_delay_ms = delay_ms

    def _model_task(self) -> asyncio.Task[Snapshot | None]:
        """The task computing the model of the document's current version in this process."""
        task = self._modelling
        if task is None or self._modelling_version != self.version:
            if task is not None:
                task.cancel()
            self._modelling = task = asyncio.ensure_future(self._model())
            self._modelling_version = self.version
        return task

    async def _model(self) -> Snapshot | None:
        if self._model_computing is not None:
            await asyncio.wait([self._model_computing])  # one model analysis at a time
        return await self._analyze(model=True)

    async def _analyze_later(self, delay_ms: int) -> Snapshot | None:
        if delay_ms:
            await asyncio.sleep(delay_ms / 1000)
            self.pending_delay_ms = 0
        if self._computing is not None:
            # A superseded analysis stops at its next checkpoint: wait for that instead of
            # starting one beside it, so a document never has two analyses running.
            await asyncio.wait([self._computing])
        began = time.perf_counter()
        # The snapshot this analysis replaces, held until the listeners have published the new
        # one: freeing its analysis (what the new one did not take over) is not part of an
        # edit's round trip. An analysis with an earlier one to build on is `warm`.
        replaced = self.latest
        warm = replaced is not None
        snapshot = await self._analyze(model=False)
        if snapshot is None:
            return None
        if warm:
            self.last_analysis_ms = (time.perf_counter() - began) * 1000
        if self._host.is_open(self) and self.version == snapshot.version:
            self._host.analysed(snapshot)
        return snapshot

    async def _analyze(self, model: bool) -> Snapshot | None:
        """Analyse the document's current text: in this process (a model and diagnostics) when
        `model` is asked for or the document is small, else in the analysis process
        (diagnostics only). None when it was superseded or failed."""
        host = self._host
        version, text, path = self.version, self.text, self.path
        generation = self.generation
        in_process = model or not host.in_analysis_process(text)
        # the version before the edit: analyze() reads again only the YAML it changed
        latest = self.latest
        previous = latest.result if latest is not None and latest.has_model else None

        def superseded() -> bool:  # read from the analysis thread
            return self.version != version or not host.is_open(self)

        workspace = host.workspace_index(self.uri)

        while True:
            # an AnalysisResult from this process, a Diagnosis from the analysis process
            computing: asyncio.Future[Any]
            if in_process:
                computing = host.analyses.submit(
                    len(text),
                    lambda: analyze(text, path, superseded, previous, workspace=workspace),
                )
            else:
                computing = host.analysis_process.submit(text, path, superseded)
            if model:
                self._model_computing = computing
            else:
                self._computing = computing
            # A superseded analysis ends in AnalysisStopped that no one awaits (its task was
            # cancelled); taking it here keeps asyncio from logging it as a lost error.
            computing.add_done_callback(_take_outcome)
            try:
                # shielded: cancelling the task must leave `computing` pending until it ends
                outcome = await asyncio.shield(computing)
            except AnalysisStopped:
                return None  # a newer version's analysis is scheduled
            except WorkerLost as lost:
                host.log_warning(
                    f"the analysis process ended ({lost}); analysing {self.uri} in the server"
                )
                in_process = True
                continue
            except Exception:
                # analyze() promises never to raise; if it does, keep serving the last results
                logger.exception("analysis of %s failed", self.uri)
                host.log_error(f"analysis of {self.uri} failed; see the server's stderr")
                return None
            result, omitted = (
                (outcome.result, outcome.omitted) if isinstance(outcome, Diagnosis)
                else (outcome, {})
            )
            snapshot = Snapshot(self.uri, version, text, result, host.position_encoding,
                                has_model=in_process, omitted=omitted)
            self.record(snapshot)
            if self.latest is snapshot:
                self.latest_generation = generation
            return snapshot


def _take_outcome(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
