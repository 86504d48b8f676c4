"""The language server object: the open documents' sessions, the settings, and what every
document shares (the analysis threads and process, the sandbox's workers, the listeners).

Feature modules (`server/lsp/features/*.py`) never keep their own document state; they ask this
object for a document's snapshots (see `server/lsp/__init__.py`). Each document's analyses are its
session's (`server.lsp.session`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import logging
import pkgutil
import socket
import sys
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from threading import Event
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from analysis.checks.analyze import AnalysisResult, analyze
from analysis.document.model import Workflow
from analysis.document.yaml_profile import MAX_SOURCE_BYTES
from analysis.project.config import ProjectConfig
from analysis.project.files import SourceTooLarge, read_regular_file
from analysis.project.kinds import NOT_A_WORKFLOW, FileKind
from analysis.project.workspace import Resolution, WorkspaceIndex, find_project
from sandbox import WorkerPool
from server.lsp import project_settings
from server.lsp.analysis_queue import AnalysisQueue
from server.lsp.boot.early_initialize import Opening
from server.lsp.boot.transport import FramePump, FrameReader, serve, stdin_frames
from server.lsp.document_uris import is_agent_uri, is_relavium_uri, uri_to_path
from server.lsp.documents import Snapshot, project_root, workspace_file, workspace_roots
from server.lsp.protocol import RelaviumProtocol
from server.lsp.session import DocumentClosed, Session
from server.lsp.settings import Settings, parse_settings
from server.lsp.worker.client import AnalysisProcess
from server.lsp.worker.spawn import LARGE_DOCUMENT_CHARS
from server.lsp.worker.wire import Question

logger = logging.getLogger("relavium-lsp")
T = TypeVar("T")
# Two, so a second run is not queued behind one that hangs until the deadline.
SANDBOX_WORKERS = 2
# How long diagnostics wait for the client's first workspace/configuration answer.
SETTINGS_WAIT_SECONDS = 2.0

AnalysisListener = Callable[[Snapshot], None]
UriListener = Callable[[str], None]
SettingsListener = Callable[[], None]


class CommandFailed(Exception):
    """A command cannot start; the message names the problem and what to do."""


class RelaviumLanguageServer(LanguageServer):
    protocol: RelaviumProtocol

    def __init__(self) -> None:
        super().__init__(
            name="relavium-lsp",
            version=version("relavium-lsp"),
            protocol_cls=RelaviumProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.protocol.host = self
        self.settings = Settings()
        # the `relavium` section as the editor sent it; `settings` adds the project file under it
        self.editor_settings = Settings()
        # what was wrong with the editor's last settings (shown as warnings; relavium.status)
        self.settings_problems: list[str] = []
        self.project_config: ProjectConfig | None = None
        # bumped on every settings change, so cached results (pull result ids) can tell
        self.settings_generation = 0
        # Set once the client's first configuration answer is in (or given up on): diagnostics
        # wait for it, or the first ones would show rules the user's settings turn off.
        self.settings_settled = asyncio.Event()
        self.documents: dict[str, Session] = {}
        # project folder → the agent index its workflows resolve `agent_ref`s with
        self._indexes: dict[str, WorkspaceIndex] = {}
        # whether the client reports agent files changed on disk (features/watched_files.py);
        # until it does, opening or saving a document reads its project's files again
        self.watching_agent_files = False
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
        from what `server.lsp.boot.early_initialize.open_stdio` read and answered, if given."""
        writer = StdoutWriter(stdout or sys.stdout.buffer)
        if opening is None:
            self._serve(FramePump(FrameReader(stdin) if stdin else stdin_frames()), writer)
            return
        self.protocol.early = opening.answered
        self._serve(opening.frames, writer)

    def start_tcp(self, host: str, port: int) -> None:
        """Serve the first client that connects to HOST:PORT, then exit."""
        with socket.create_server((host, port)) as listener:
            logger.info("listening on %s:%s", host, port)
            connection, _ = listener.accept()
        with connection, connection.makefile("rb") as incoming:
            self._serve(FramePump(FrameReader(incoming)), _SocketWriter(connection))

    def _serve(self, frames: FramePump, writer: StdoutWriter | _SocketWriter) -> None:
        """Handle the client's frames."""
        self._stop_event = stop = Event()
        self.protocol.set_writer(writer)
        protocol = self.protocol

        async def run() -> None:
            await serve(protocol, frames.attach(asyncio.get_running_loop()), stop, self.log_error)

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

    def document(self, uri: str) -> Session | None:
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
        return await self._of_open(
            uri, lambda session: session.fresh_snapshot(model=model, debounced=debounced)
        )

    async def ask_analysis_process(self, uri: str, question: Question
                                   ) -> tuple[Snapshot, Any] | None:
        """`question` answered about the document's current text in the analysis process, where
        a large document's model is, and the snapshot whose text the answer's offsets refer to
        (without a model: the current version's, or the last one that parsed). None when the
        document is not diagnosed there (closed, small, or the process is unusable): ask the
        model `fresh_snapshot` computes here instead. Requests asking the same question about
        the same version share one answer (an editor asks again after every edit, and may not
        cancel what it asked before)."""
        return await self._of_open(uri, lambda session: session.ask_analysis_process(question))

    async def _of_open(
        self, uri: str, ask: Callable[[Session], Awaitable[T | None]]
    ) -> T | None:
        """`ask` of the document's session; of the next one when it is closed meanwhile and
        opened again (None once it is not open)."""
        while (session := self.documents.get(uri)) is not None:
            try:
                return await ask(session)
            except DocumentClosed:
                continue
        return None

    def workspace_index(self, uri: str) -> WorkspaceIndex | None:
        """The agent index of the project (nearest folder above holding `.relavium/`) a file URI
        is in, made on first use; None outside any project or for a URI that is no file: then a
        workflow is judged alone, as the server always did."""
        path = to_fs_path(uri) if uri.startswith("file:") else None
        project = find_project(path) if path else None
        if project is None:
            return None
        index = self._indexes.get(project)
        if index is None:
            index = self._indexes[project] = WorkspaceIndex(project)
        return index

    async def agent_resolution(self, uri: str, workflow: Workflow | None) -> Resolution | None:
        """What a workflow's `agent_ref`s resolve to across files (None outside a project):
        resolved on a thread, as the index may read agent files the first time."""
        index = self.workspace_index(uri)
        path = to_fs_path(uri)
        if index is None or workflow is None or path is None:
            return None
        return await asyncio.to_thread(index.resolve, path, workflow)

    def agent_files_changed(self, changes: dict[str, str | None], delay_ms: int = 0) -> None:
        """Agent files (by URI) now hold an editor's text, or (None) what is on disk: tell their
        projects' indexes, and analyse again after `delay_ms` the open workflows of those
        projects (any of them may name these agents)."""
        touched: set[str] = set()
        for uri, text in changes.items():
            index = self.workspace_index(uri)
            if index is not None:
                index.update(uri_to_path(uri), text)
                touched.add(index.root)
        self._reanalyze_workflows(touched, set(changes), delay_ms)

    def _reanalyze_workflows(self, projects: set[str], besides: set[str], delay_ms: int) -> None:
        """Analyse again the open workflows of these projects (but `besides`' URIs)."""
        if not projects:
            return
        affected = [session for session in self.documents.values()
                    if session.uri not in besides and not is_agent_uri(session.uri)
                    and (index := self.workspace_index(session.uri)) is not None
                    and index.root in projects]
        for session in affected:
            session.reanalyze(delay_ms)
        if affected and self.pull_diagnostics:
            # the client pulls again; each pull waits for the analysis just scheduled
            self.workspace_diagnostic_refresh(None)

    def _unwatched_disk_may_differ(self, uri: str) -> None:
        """Without the client's file watching, nothing says when agent files change on disk:
        the index reads them again when a document of the project is opened or saved, and the
        project's other open workflows are analysed again."""
        index = self.workspace_index(uri) if not self.watching_agent_files else None
        if index is not None:
            index.forget_disk()
            self._reanalyze_workflows({index.root}, {uri}, 0)

    async def analysis_of(self, uri: str) -> AnalysisResult | None:
        """The open document's current analysis, else the saved file's (None when the URI is
        not a workflow file). Raises OSError/UnicodeDecodeError/SourceTooLarge when the file
        cannot be read or is outside the workspace (`workspace_file`)."""
        if self.documents.get(uri) is not None:
            snapshot = await self.fresh_snapshot(uri)
            return snapshot.result if snapshot is not None else None
        if not is_relavium_uri(uri):
            return None
        path = workspace_file(uri, workspace_roots(self.workspace))
        text = await asyncio.to_thread(read_regular_file, path)
        workspace = self.workspace_index(uri)
        return await self.analyses.submit(len(text),
                                          lambda: analyze(text, path, workspace=workspace))

    async def command_analysis(self, uri: str) -> AnalysisResult:
        """`analysis_of` for commands: a `CommandFailed` that says what is wrong instead of None
        or an I/O error."""
        try:
            result = await self.analysis_of(uri)
        except SourceTooLarge as error:
            raise CommandFailed(f"cannot read {uri_to_path(uri)}: it is {error.size}, and a "
                                f"workflow may be at most {MAX_SOURCE_BYTES} bytes") from None
        except (OSError, UnicodeDecodeError) as error:
            raise CommandFailed(f"cannot read {uri_to_path(uri)} ({error})") from None
        if result is None:
            raise CommandFailed(f"{uri} is not a Relavium workflow file")
        if result.kind is FileKind.AGENT:
            raise CommandFailed(NOT_A_WORKFLOW)
        return result

    async def command_snapshot(self, uri: str) -> tuple[Snapshot | None, AnalysisResult]:
        """For a command on a document: the open document's fresh snapshot and its analysis,
        else (not open) None and the saved file's (`command_analysis`)."""
        snapshot = await self.fresh_snapshot(uri) if self.document(uri) is not None else None
        if snapshot is not None:
            return snapshot, snapshot.result
        return None, await self.command_analysis(uri)

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
        if not is_relavium_uri(item.uri):
            return
        session = Session(self, item.uri, item.version, item.text, opening=next(self._openings))
        self.documents[item.uri] = session
        self._unwatched_disk_may_differ(item.uri)
        session.open()
        if is_agent_uri(item.uri):
            self.agent_files_changed({item.uri: item.text})
        asyncio.get_running_loop().call_soon(self.protocol.prepare_keystrokes)

    def change_document(self, params: types.DidChangeTextDocumentParams) -> str | None:
        """Apply the edits; the document's text after them (None: not an open workflow)."""
        session = self.documents.get(params.text_document.uri)
        if session is None:
            return None
        version = params.text_document.version
        clamped = session.change(params.content_changes, version, self.position_encoding)
        if is_agent_uri(session.uri):
            # debounced as the agent file's own analysis is
            self.agent_files_changed({session.uri: session.text}, session.pending_delay_ms)
        if clamped:
            self.log_warning(
                f"didChange for {session.uri} (version {version}) had "
                f"{clamped} out-of-range edit(s); clamped to the document"
            )
        return session.text

    def save_document(self, uri: str) -> None:
        session = self.documents.get(uri)
        if session is not None:
            self._unwatched_disk_may_differ(uri)
            session.save()
            if is_agent_uri(uri):  # the file on disk is the buffer now
                self.agent_files_changed({uri: None})

    def close_document(self, uri: str) -> None:
        session = self.documents.pop(uri, None)
        if session is None:
            return
        session.close()
        for listener in self._close_listeners:
            listener(uri)
        if is_agent_uri(uri):  # what a workflow resolves is the file on disk again
            self.agent_files_changed({uri: None})

    # -- settings ------------------------------------------------------------------------------

    def apply_settings(self, raw: Any, source: str) -> None:
        settings, problems = parse_settings(raw)
        for problem in problems:
            self.show_message(f"relavium-lsp ({source}): {problem}", types.MessageType.Warning)
        self.editor_settings, self.settings_problems = settings, problems
        self.settings = project_settings.merged(settings, self.project_config)
        self.settings_generation += 1
        for listener in self._settings_listeners:
            listener()

    def reload_project_config(self) -> None:
        """Read the project configuration of the workspace folder again (after `initialized` and
        on every configuration change), keeping the editor's settings over it."""
        config, path, error = project_settings.load_for(project_root(self.workspace))
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

    # -- what sessions ask of the server (`server.lsp.session.SessionHost`) ------------------

    def in_analysis_process(self, text: str) -> bool:
        return len(text) >= self.large_document_chars and self.analysis_process.usable

    def is_open(self, session: Session) -> bool:
        return self.documents.get(session.uri) is session

    def analysed(self, snapshot: Snapshot) -> None:
        for listener in self._analysis_listeners:
            try:
                listener(snapshot)
            except Exception:  # one feature's bug must not stop the others hearing
                logger.exception("analysis listener %r failed", listener)


class _SocketWriter:
    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection

    def write(self, data: bytes) -> None:
        self.connection.sendall(data)

    def close(self) -> None:
        self.connection.close()


def create_server() -> RelaviumLanguageServer:
    """A server with every module under `server/lsp/features/` registered."""
    from server.lsp import features

    ls = RelaviumLanguageServer()
    for module_info in sorted(pkgutil.iter_modules(features.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{features.__name__}.{module_info.name}")
        module.register(ls)
    return ls
