"""The language server object: per-document state, settings, and analysis scheduling.

Feature modules (`server/features/*.py`) never keep their own document state; they ask this
object for a document's snapshots (see `server/__init__.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import logging
import math
import pkgutil
import socket
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from threading import Event
from typing import TYPE_CHECKING, Any, BinaryIO

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from analysis.checks.analyze import AnalysisResult, AnalysisStopped, analyze
from analysis.project.config import ProjectConfig
from sandbox import WorkerPool
from server.lsp import project_settings
from server.lsp.analysis_queue import AnalysisQueue
from server.lsp.boot.transport import Dropped, FrameReader, read_in_thread, serve, stdin_frames
from server.lsp.documents import DocumentState, Snapshot, is_workflow_uri, uri_to_path
from server.lsp.settings import DEFAULT_DEBOUNCE_MS, Settings, parse_settings
from server.lsp.worker.client import AnalysisProcess, WorkerLost
from server.lsp.worker.wire import Diagnosis, Question

if TYPE_CHECKING:
    from server.lsp.boot.early_initialize import Opening

logger = logging.getLogger("relavium-lsp")
# Two, so a second run is not queued behind one that hangs until the deadline.
SANDBOX_WORKERS = 2
# Documents at least this long (characters) are diagnosed in the analysis process. Below it an
# analysis takes a few tens of milliseconds and leaves little garbage; above it, analysing in
# the server process fills its heap, and the collector's pauses (each holds the interpreter lock,
# 0.3–0.4 s at 5,000 nodes) stall every request (bench/starve.py shows the split).
LARGE_DOCUMENT_CHARS = 64 * 1024
# How long diagnostics wait for the client's first workspace/configuration answer.
SETTINGS_WAIT_SECONDS = 2.0

AnalysisListener = Callable[[Snapshot], None]
UriListener = Callable[[str], None]
SettingsListener = Callable[[], None]


class CommandFailed(Exception):
    """A command cannot start; the message names the problem and what to do."""


class RelaviumLanguageServer(LanguageServer):
    def __init__(self) -> None:
        from server.lsp.protocol import RelaviumProtocol

        super().__init__(
            name="relavium-lsp",
            version=version("relavium-lsp"),
            protocol_cls=RelaviumProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.settings = Settings()
        # the `relavium` section as the editor sent it; `settings` adds the project file under it
        self.editor_settings = Settings()
        self.project_config: ProjectConfig | None = None
        # bumped on every settings change, so cached results (pull result ids) can tell
        self.settings_generation = 0
        # Set once the client's first configuration answer is in (or given up on): diagnostics
        # wait for it, or the first ones would show rules the user's settings turn off.
        self.settings_settled = asyncio.Event()
        self.documents: dict[str, DocumentState] = {}
        # Decided at initialize: pull when the client supports textDocument/diagnostic.
        self.pull_diagnostics = False
        self._analysis_listeners: list[AnalysisListener] = []
        self._close_listeners: list[UriListener] = []
        self._settings_listeners: list[SettingsListener] = []
        self._dry_run_listeners: list[SettingsListener] = []
        self._sandbox_pool: WorkerPool | None = None
        # analyses run here, never on pygls' thread pool (see server.lsp.analysis_queue)
        self.analyses = AnalysisQueue()
        # large documents' diagnostics are computed in a process of their own
        self.analysis_process = AnalysisProcess()
        self.large_document_chars = LARGE_DOCUMENT_CHARS
        # A run waits here, on the event loop, for a free worker: waiting inside pygls' thread
        # pool instead would hold a thread, and enough queued runs starve the stdin reader.
        self.sandbox_turns = asyncio.Semaphore(SANDBOX_WORKERS)
        self._openings = itertools.count()
        # what `serve` exits with: set by the `exit` notification (stdin closing leaves it 0)
        self.exit_code = 0

    @property
    def sandbox_pool(self) -> WorkerPool:
        """Worker processes for "run with sample scope", started on first use."""
        if self._sandbox_pool is None:
            self._sandbox_pool = WorkerPool(size=SANDBOX_WORKERS)
        return self._sandbox_pool

    def start_io(
        self,
        stdin: BinaryIO | None = None,
        stdout: BinaryIO | None = None,
        opening: Opening | None = None,
    ) -> None:
        """Serve over stdio with the server's own reader (`server.lsp.boot.transport`), going on
        from what
        `server.lsp.boot.early_initialize.open_stdio` read and answered, when it is given."""
        writer = StdoutWriter(stdout or sys.stdout.buffer)
        if opening is None:
            self._serve(FrameReader(stdin) if stdin else stdin_frames(), writer)
            return
        from server.lsp.protocol import RelaviumProtocol

        assert isinstance(self.protocol, RelaviumProtocol)
        self.protocol.early = opening.answered
        self._serve(opening.reader, writer, opening.first)

    def start_tcp(self, host: str, port: int) -> None:
        """Serve the first client that connects to HOST:PORT, then exit."""
        with socket.create_server((host, port)) as listener:
            logger.info("listening on %s:%s", host, port)
            connection, _ = listener.accept()
        with connection, connection.makefile("rb") as incoming:
            self._serve(FrameReader(incoming), _SocketWriter(connection))

    def _serve(
        self,
        reader: FrameReader,
        writer: StdoutWriter | _SocketWriter,
        first: bytes | Dropped | None = None,
    ) -> None:
        """Handle `first` (a frame already read), then the reader's frames."""
        from server.lsp.protocol import RelaviumProtocol

        self._stop_event = stop = Event()
        self.protocol.set_writer(writer)
        assert isinstance(self.protocol, RelaviumProtocol)
        protocol = self.protocol

        async def run() -> None:
            frames = read_in_thread(reader, asyncio.get_running_loop(), first)
            await serve(protocol, frames, stop, self.log_error)

        try:
            asyncio.run(run())
        except BrokenPipeError:
            logger.error("the client closed its end of the connection; stopping")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        if self._sandbox_pool is not None:
            self._sandbox_pool.close()
        self.analysis_process.close()
        super().shutdown()

    # -- what feature modules read -------------------------------------------------------------

    @property
    def position_encoding(self) -> str:
        encoding = self.workspace.position_encoding
        return str(encoding or types.PositionEncodingKind.Utf16)

    def document(self, uri: str) -> DocumentState | None:
        """An open workflow document, or None (unknown, closed, or not a workflow file)."""
        return self.documents.get(uri)

    def last_good_snapshot(self, uri: str) -> Snapshot | None:
        """The newest analysis whose YAML parsed: what to serve completion/hover/navigation from
        while the user is half-way through typing."""
        state = self.documents.get(uri)
        return state.last_good if state else None

    async def fresh_snapshot(
        self, uri: str, *, model: bool = True, debounced: bool = False
    ) -> Snapshot | None:
        """The analysis of the document's current text, skipping any pending debounce unless
        `debounced` (pulled diagnostics: a client pulls after every change, so skipping it
        analysed every keystroke of a burst, each to be stopped when the next one came).

        A large document's diagnostics come from the analysis process, without the model that
        requests serve from: unless `model=False` (diagnostics only), its model is then
        computed here, on demand, beside that diagnosis."""
        while (state := self.documents.get(uri)) is not None:
            latest = state.latest
            if latest is not None and latest.version == state.version and (
                latest.has_model or not model
            ):
                return latest
            if model and self._in_analysis_process(state.text):
                task = self._modelling(state)
            else:
                if state.pending is None or state.pending.done() or (
                    state.pending_delay_ms and not debounced
                ):
                    self._schedule(state, delay_ms=0)
                assert state.pending is not None
                task = state.pending
            try:
                # shield: a caller's cancellation must not cancel the shared analysis
                snapshot = await asyncio.shield(task)
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if task.cancelled() and not (current and current.cancelling()):
                    continue  # a newer edit superseded that analysis; wait for the next one
                raise
            if snapshot is None or snapshot.version == state.version:
                return snapshot
        return None

    async def ask_analysis_process(self, uri: str, question: Question
                                   ) -> tuple[Snapshot, Any] | None:
        """`question` answered about the document's current text in the analysis process, where
        a large document's model is, and the snapshot whose text the answer's offsets refer to
        (without a model: the current version's, or the last one that parsed). None when the
        document is not diagnosed there (closed, small, or the process is unusable): ask the
        model `fresh_snapshot` computes here instead. Requests asking the same question about
        the same version share one answer (an editor asks again after every edit, and may not
        cancel what it asked before)."""
        while (state := self.documents.get(uri)) is not None and self._in_analysis_process(
            state.text
        ):
            version, text = state.version, state.text

            def superseded(state: DocumentState = state, version: int = version) -> bool:
                return state.version != version or self.documents.get(state.uri) is not state

            shared = state.asking.get(question)
            if shared is not None and shared[0] == version and not shared[1].cancelled():
                asked = shared[1]
            else:
                asked = self.analysis_process.ask(text, state.path, superseded, question)
                asked.add_done_callback(_take_outcome)  # when every asker is gone
                state.asking[question] = (version, asked)
            try:
                # shielded: one request cancelled must not cancel the others' answer
                answer = await asyncio.shield(asked)
            except AnalysisStopped:
                continue  # a newer version came: ask about that one
            except WorkerLost:
                return None
            diagnosis = answer.diagnosis
            # the text asked about, not its copy from the analysis process: a view compares it
            # with the live text, at once when they are the same object
            answered = text if answer.current else diagnosis.result.source.text
            snapshot = Snapshot(uri, version, answered, diagnosis.result, self.position_encoding,
                                has_model=False, omitted=diagnosis.omitted)
            if answer.current:
                state.record(snapshot)
            return snapshot, answer.value
        return None

    async def analysis_of(self, uri: str) -> AnalysisResult | None:
        """The open document's current analysis, else the saved file's (None when the URI is
        not a workflow file). Raises OSError/UnicodeDecodeError when the file cannot be read."""
        if self.documents.get(uri) is not None:
            snapshot = await self.fresh_snapshot(uri)
            return snapshot.result if snapshot is not None else None
        if not is_workflow_uri(uri):
            return None
        path = uri_to_path(uri)
        text = await asyncio.to_thread(_read_text, path)
        return await self.analyses.submit(len(text), lambda: analyze(text, path))

    async def command_analysis(self, uri: str) -> AnalysisResult:
        """`analysis_of` for commands: a `CommandFailed` that says what is wrong instead of None
        or an I/O error."""
        try:
            result = await self.analysis_of(uri)
        except (OSError, UnicodeDecodeError) as error:
            raise CommandFailed(f"cannot read {uri_to_path(uri)} ({error})") from None
        if result is None:
            raise CommandFailed(f"{uri} is not a Relavium workflow file")
        return result

    # -- events ---------------------------------------------------------------------------------

    def on_dry_run(self, listener: SettingsListener) -> None:
        """Called after a dry run placed new results in a document."""
        self._dry_run_listeners.append(listener)

    def dry_run_placed(self) -> None:
        for listener in self._dry_run_listeners:
            listener()

    def on_analysis(self, listener: AnalysisListener) -> None:
        """Called with each snapshot that is current (its version is the document's) when done."""
        self._analysis_listeners.append(listener)

    def on_close(self, listener: UriListener) -> None:
        self._close_listeners.append(listener)

    def on_settings_changed(self, listener: SettingsListener) -> None:
        self._settings_listeners.append(listener)

    # -- document sync (called by the protocol) -----------------------------------------------

    def open_document(self, item: types.TextDocumentItem) -> None:
        if not is_workflow_uri(item.uri):
            return
        self.documents[item.uri] = DocumentState(
            item.uri, item.version, item.text, opening=next(self._openings)
        )
        self._schedule(self.documents[item.uri], delay_ms=0)
        from server.lsp.protocol import RelaviumProtocol

        assert isinstance(self.protocol, RelaviumProtocol)
        asyncio.get_running_loop().call_soon(self.protocol.prepare_keystrokes)

    def change_document(self, params: types.DidChangeTextDocumentParams) -> None:
        state = self.documents.get(params.text_document.uri)
        if state is None:
            return
        clamped = state.apply(params.content_changes, self.position_encoding)
        if clamped:
            self.log_warning(
                f"didChange for {state.uri} (version {params.text_document.version}) had "
                f"{clamped} out-of-range edit(s); clamped to the document"
            )
        state.version = params.text_document.version
        now = time.perf_counter()
        delay_ms = self.debounce_ms(state, now)
        state.edited_at = now
        self._schedule(state, delay_ms=delay_ms)

    def debounce_ms(self, state: DocumentState, now: float) -> int:
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
        if self.settings.debounce_ms is not None:
            return self.settings.debounce_ms
        spent = state.last_analysis_ms
        limit = DEFAULT_DEBOUNCE_MS if spent is None else min(DEFAULT_DEBOUNCE_MS, spent)
        gap_ms = math.inf if state.edited_at is None else (now - state.edited_at) * 1000
        if gap_ms < limit:
            return math.ceil(min(limit, 2 * gap_ms))
        return 0 if spent is None or spent <= DEFAULT_DEBOUNCE_MS else DEFAULT_DEBOUNCE_MS

    def save_document(self, uri: str) -> None:
        """Saving flushes a pending debounce; an analysis of the saved version that is already
        running is left to finish (restarting it analysed that version a second time)."""
        state = self.documents.get(uri)
        if state is None or (state.latest is not None and state.latest.version == state.version):
            return
        if state.pending is not None and not state.pending.done() and not state.pending_delay_ms:
            return
        self._schedule(state, delay_ms=0)

    def close_document(self, uri: str) -> None:
        state = self.documents.pop(uri, None)
        if state is None:
            return
        for task in (state.pending, state.modelling):
            if task is not None:
                task.cancel()
        self.analysis_process.cancel_superseded()
        for listener in self._close_listeners:
            listener(uri)

    # -- settings ------------------------------------------------------------------------------

    def apply_settings(self, raw: Any, source: str) -> None:
        settings, problems = parse_settings(raw)
        for problem in problems:
            self.show_message(f"relavium-lsp ({source}): {problem}", types.MessageType.Warning)
        self.editor_settings = settings
        self.settings = project_settings.merged(settings, self.project_config)
        self.settings_generation += 1
        for listener in self._settings_listeners:
            listener()

    def reload_project_config(self) -> None:
        """Read the project configuration of the workspace folder again (after `initialized` and
        on every configuration change), keeping the editor's settings over it."""
        config, path, error = project_settings.load_for(self.workspace.root_path)
        if path is not None:
            self.text_document_publish_diagnostics(project_settings.config_diagnostics(path, error))
        if error is not None:
            self.log(f"relavium-lsp: {error}", types.MessageType.Error)
        if config == self.project_config:
            return  # nothing to re-diagnose (a settings change that follows does its own)
        self.project_config = config
        self.settings = project_settings.merged(self.editor_settings, config)
        self.settings_generation += 1
        self.settings_changed()

    def settings_changed(self) -> None:
        """Tell every listener that diagnostics computed so far may be out of date."""
        for listener in self._settings_listeners:
            listener()

    async def settled_settings(self) -> Settings:
        """The settings, once the client's first configuration answer is in; waits at most
        SETTINGS_WAIT_SECONDS for it (a client that never answers gets the settings there are)."""
        if not self.settings_settled.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.settings_settled.wait(), SETTINGS_WAIT_SECONDS)
        return self.settings

    # -- messages ------------------------------------------------------------------------------

    def show_message(self, message: str, kind: types.MessageType) -> None:
        logger.info("%s", message)
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        logger.info("%s", message)
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def log_warning(self, message: str) -> None:
        self.log(message, types.MessageType.Warning)

    def log_error(self, message: str) -> None:
        self.log(message, types.MessageType.Error)

    # -- analysis scheduling -------------------------------------------------------------------

    def _schedule(self, state: DocumentState, delay_ms: int) -> None:
        """(Re)start the document's debounced analysis; a newer edit restarts the timer."""
        if state.pending is not None and not state.pending.done():
            state.pending.cancel()
        self.analysis_process.cancel_superseded()
        state.pending = asyncio.ensure_future(self._analyze_later(state, delay_ms))
        state.pending_delay_ms = delay_ms

    def _in_analysis_process(self, text: str) -> bool:
        return len(text) >= self.large_document_chars and self.analysis_process.usable

    def _modelling(self, state: DocumentState) -> asyncio.Task[Snapshot | None]:
        """The task computing the model of the document's current version in this process."""
        task = state.modelling
        if task is None or state.modelling_version != state.version:
            if task is not None:
                task.cancel()
            state.modelling = task = asyncio.ensure_future(self._model(state))
            state.modelling_version = state.version
        return task

    async def _model(self, state: DocumentState) -> Snapshot | None:
        if state.model_computing is not None:
            await asyncio.wait([state.model_computing])  # one model analysis at a time
        return await self._analyze(state, model=True)

    async def _analyze_later(self, state: DocumentState, delay_ms: int) -> Snapshot | None:
        if delay_ms:
            await asyncio.sleep(delay_ms / 1000)
            state.pending_delay_ms = 0
        if state.computing is not None:
            # A superseded analysis stops at its next checkpoint: wait for that instead of
            # starting one beside it, so a document never has two analyses running.
            await asyncio.wait([state.computing])
        began = time.perf_counter()
        # The snapshot this analysis replaces, held until the listeners have published the new
        # one: freeing its analysis (what the new one did not take over) is not part of an
        # edit's round trip. An analysis with an earlier one to build on is `warm`.
        replaced = state.latest
        warm = replaced is not None
        snapshot = await self._analyze(state, model=False)
        if snapshot is None:
            return None
        if warm:
            state.last_analysis_ms = (time.perf_counter() - began) * 1000
        if self.documents.get(state.uri) is state and state.version == snapshot.version:
            for listener in self._analysis_listeners:
                try:
                    listener(snapshot)
                except Exception:  # one feature's bug must not stop the others hearing
                    logger.exception("analysis listener %r failed", listener)
        return snapshot

    async def _analyze(self, state: DocumentState, model: bool) -> Snapshot | None:
        """Analyse the document's current text: in this process (a model and diagnostics) when
        `model` is asked for or the document is small, else in the analysis process
        (diagnostics only). None when it was superseded or failed."""
        version, text = state.version, state.text
        in_process = model or not self._in_analysis_process(text)
        # the version before the edit: analyze() reads again only the YAML it changed
        latest = state.latest
        previous = latest.result if latest is not None and latest.has_model else None

        def superseded() -> bool:  # read from the analysis thread
            return state.version != version or self.documents.get(state.uri) is not state

        while True:
            # an AnalysisResult from this process, a Diagnosis from the analysis process
            computing: asyncio.Future[Any]
            if in_process:
                computing = self.analyses.submit(
                    len(text), lambda: analyze(text, state.path, superseded, previous)
                )
            else:
                computing = self.analysis_process.submit(text, state.path, superseded)
            if model:
                state.model_computing = computing
            else:
                state.computing = computing
            # A superseded analysis ends in AnalysisStopped that no one awaits (its task was
            # cancelled); taking it here keeps asyncio from logging it as a lost error.
            computing.add_done_callback(_take_outcome)
            try:
                # shielded: cancelling the task must leave `computing` pending until it ends
                outcome = await asyncio.shield(computing)
            except AnalysisStopped:
                return None  # a newer version's analysis is scheduled
            except WorkerLost as lost:
                self.log_warning(
                    f"the analysis process ended ({lost}); analysing {state.uri} in the server"
                )
                in_process = True
                continue
            except Exception:
                # analyze() promises never to raise; if it does, keep serving the last results
                logger.exception("analysis of %s failed", state.uri)
                self.log_error(f"analysis of {state.uri} failed; see the server's stderr")
                return None
            result, omitted = (
                (outcome.result, outcome.omitted) if isinstance(outcome, Diagnosis)
                else (outcome, {})
            )
            snapshot = Snapshot(state.uri, version, text, result, self.position_encoding,
                                has_model=in_process, omitted=omitted)
            state.record(snapshot)
            return snapshot


def _take_outcome(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class _SocketWriter:
    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection

    def write(self, data: bytes) -> None:
        self.connection.sendall(data)

    def close(self) -> None:
        self.connection.close()


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def create_server() -> RelaviumLanguageServer:
    """A server with every module under `server/features/` registered."""
    from server.lsp import features

    ls = RelaviumLanguageServer()
    for module_info in sorted(pkgutil.iter_modules(features.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{features.__name__}.{module_info.name}")
        module.register(ls)
    return ls
