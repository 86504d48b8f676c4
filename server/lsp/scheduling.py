"""Where analyses run: threads of their own for small documents, a process of their own for the
diagnostics of large ones; smallest document first.

Analyses used to share pygls' thread pool with request handlers and the stdin reader, so a few
large documents could hold every thread and leave a hover on a small one unanswered for a minute.
Here they queue for `ANALYSIS_WORKERS` dedicated threads, ordered by the size of the text: a small
document's analysis never waits behind more than the large ones already running. A job is
given a `should_stop` check it passes to `analysis.analyze`, which stops at its next checkpoint
once the version it analyses is superseded (a queued job that is already superseded never starts).

Threads were not enough for large documents: an analysis of one fills the heap, and the cyclic
collector's pauses (0.3-0.6 s, holding the interpreter lock) stalled every request (measured by
bench/starve.py with bench/server_probe.py). `AnalysisProcess` computes their diagnostics in a
worker process instead (`worker_main`), and answers questions that need their model there too
(an outline, as an editor showing the document asks after every edit): building those models in
the server as well brought the collector's pauses back, and analysed each version twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import copyreg
import heapq
import io
import itertools
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import IO, Any, NamedTuple, TypeVar

from analysis.checks.analyze import AnalysisResult, AnalysisStopped, analyze
from analysis.diagnostics import Diagnostic
from analysis.document.source import SourceText, changed_span
from analysis.document.yaml_nodes import YamlDocument
from server.lsp.boot.early_initialize import start_analysis_process

T = TypeVar("T")

# Two: a second document is analysed beside a large one instead of waiting for it to end.
ANALYSIS_WORKERS = 2


class AnalysisQueue:
    def __init__(self, workers: int = ANALYSIS_WORKERS) -> None:
        self._jobs: list[tuple[int, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._ready = threading.Condition()
        self._workers = workers
        self._started = False

    def submit(self, size: int, work: Callable[[], T]) -> asyncio.Future[T]:
        """Run `work` on an analysis thread (smaller `size` first); its result or exception
        arrives in the returned future. Called on the event loop."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def settle(outcome: Callable[[], Any]) -> None:
            if not future.done():
                outcome()

        def run() -> None:
            if future.cancelled():
                return
            try:
                result = work()
            except Exception as error:  # handed to the awaiting task, not lost in the thread
                loop.call_soon_threadsafe(settle, partial(future.set_exception, error))
            else:
                loop.call_soon_threadsafe(settle, partial(future.set_result, result))

        with self._ready:
            if not self._started:
                self._start()
            heapq.heappush(self._jobs, (size, next(self._order), run))
            self._ready.notify()
        return future

    def _start(self) -> None:
        self._started = True
        for index in range(self._workers):
            threading.Thread(target=self._work, name=f"analysis-{index}", daemon=True).start()

    def _work(self) -> None:
        while True:
            with self._ready:
                while not self._jobs:
                    self._ready.wait()
                _, _, run = heapq.heappop(self._jobs)
            run()
            # what the job held (an analysis's previous version) is not kept until the next job
            del run


# Documents at least this long (characters) are diagnosed in the analysis process. Below it an
# analysis takes a few tens of milliseconds and leaves little garbage; above it, analysing in
# the server process fills its heap, and the collector's pauses (each holds the interpreter lock,
# 0.3–0.4 s at 5,000 nodes) stall every request (bench/starve.py shows the split).
LARGE_DOCUMENT_CHARS = 64 * 1024
# How many documents' last analyses the analysis process keeps for the next version of each.
KEPT_ANALYSES = 4
# At most this many diagnostics of a document reach the client (server/lsp/diagnostics.py):
# converting 128,000 took the event loop 8 s, and their JSON was tens of megabytes.
MAX_DIAGNOSTICS = 1000
# After this many unexpected worker exits, large documents are analysed in the server again.
MAX_WORKER_DEATHS = 3
# How long a job told to stop has to reach its next checkpoint before a spare worker is started
# to take over and, once it is ready, the late one is killed. Killing is the last resort: the
# killed worker's caches (previous analyses, expression facts) go with it, so the spare's first
# analysis of 5,000 nodes is cold (over a second), and starting it takes a core for most of a
# second. A grace of 0.2 s killed a worker on most keystrokes of a burst and doubled the last
# version's lag at 5,000 nodes (bench/yamlls.py, debounce 0: 1.41 s against 0.78 s with no
# kill); a warm 5,000-node analysis now reaches a checkpoint well within this grace.
STOP_GRACE_SECONDS = 1.5
# How often a late job's spare is looked at until it is ready.
SPARE_POLL_SECONDS = 0.05
_HEADER = struct.Struct("!Q")
# what a worker says once it has imported the analysis
_READY = (-1, "ready")


@dataclass(frozen=True)
class Diagnosis:
    """A large document's diagnostics from the analysis process: the result without its model
    (YAML tree, workflow, graph), at most `MAX_DIAGNOSTICS` of each rule, and how many of each
    rule were left out."""

    result: AnalysisResult
    omitted: dict[str, int]


# A question about a document's model, asked in the analysis process: a module-level function
# (it is sent by name) of an analysis with a model, returning plain data (no model objects).
Question = Callable[[AnalysisResult], Any]


@dataclass(frozen=True)
class Answer:
    """A question's value and the diagnosis of the analysis it was computed from: the analysis
    of the text asked about (`current`), or, when that has no model (the YAML does not parse),
    the document's last one that had, whose text `diagnosis.result.source` holds."""

    diagnosis: Diagnosis
    value: Any
    current: bool


class WorkerLost(Exception):
    """The analysis process exited before answering (the caller analyses in process)."""


@dataclass
class _Job:
    number: int
    text: str
    path: str | None
    superseded: Callable[[], bool]
    future: asyncio.Future[Any]  # a Diagnosis, or an Answer to `question`
    question: Question | None
    cancel_sent: bool = False

    def __lt__(self, other: _Job) -> bool:  # heap order: smaller text first, then older
        return (len(self.text), self.number) < (len(other.text), other.number)


class AnalysisProcess:
    """Diagnoses large documents in one long-lived worker process, smallest document first;
    each answer is a `Diagnosis`.

    Its heap, its collector and its CPU time are its own, so the server process keeps answering
    while it works. A job whose version is superseded is cancelled, not finished: a queued one
    never starts, the running one is told to stop at its next checkpoint
    (`cancel_superseded`), and if it has not within `STOP_GRACE_SECONDS` a spare worker is
    started and, once it is ready, the late worker is killed and the spare takes over. A worker
    exits when its input closes, so it dies with the server whichever way the server ends;
    `close` kills the workers at once. Called on the event loop only.
    """

    def __init__(self) -> None:
        self._queue: list[_Job] = []
        self._running: _Job | None = None
        self._numbers = itertools.count()
        self._worker: _Worker | None = None
        self._spare: _Worker | None = None
        # a process started before the server loaded, for the first worker (`adopt`)
        self._started: subprocess.Popen[bytes] | None = None
        self.deaths = 0
        self.forced_stops = 0

    @property
    def usable(self) -> bool:
        return self.deaths < MAX_WORKER_DEATHS

    @property
    def pid(self) -> int | None:
        return self._worker.process.pid if self._worker is not None else None

    def submit(self, text: str, path: str | None, superseded: Callable[[], bool]
               ) -> asyncio.Future[Diagnosis]:
        return self._submit(text, path, superseded, None)

    def ask(self, text: str, path: str | None, superseded: Callable[[], bool],
            question: Question) -> asyncio.Future[Answer]:
        """`question` answered from the analysis of `text`: the worker's own when it already
        has one of that text (a diagnosis job's), so a version is analysed once."""
        return self._submit(text, path, superseded, question)

    def _submit(self, text: str, path: str | None, superseded: Callable[[], bool],
                question: Question | None) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        heapq.heappush(
            self._queue, _Job(next(self._numbers), text, path, superseded, future, question)
        )
        self._start_next()
        return future

    def cancel_superseded(self) -> None:
        """Tell the worker to stop the running job if its version is superseded."""
        job = self._running
        if job is not None and not job.cancel_sent and job.superseded():
            job.cancel_sent = True
            assert self._worker is not None
            self._worker.send(("cancel", job.number))
            asyncio.get_running_loop().call_later(STOP_GRACE_SECONDS, self._stop_by_force, job)

    def adopt(self, process: subprocess.Popen[bytes]) -> None:
        """Use `process`, a `start_analysis_process()`, for the next worker."""
        self._started = process

    def close(self) -> None:
        for worker in (self._worker, self._spare):
            if worker is not None:
                worker.kill()
        self._worker = self._spare = None
        if self._started is not None:
            _kill(self._started)
            self._started = None

    def _stop_by_force(self, job: _Job) -> None:
        worker = self._worker
        # A worker still starting has not begun the job: it stops at its first checkpoint.
        if self._running is not job or worker is None or not worker.ready:
            return
        if self._spare is None:
            try:
                self._spare = self._new_worker()
            except OSError:  # no process can be started: the job stops at its checkpoint
                return
        if not self._spare.ready:
            # a spare still starting would not begin the next job sooner: look again soon
            asyncio.get_running_loop().call_later(SPARE_POLL_SECONDS, self._stop_by_force, job)
            return
        self._running = None
        self._worker, self._spare = self._spare, None  # the next late job starts a new spare
        worker.kill()
        self.forced_stops += 1
        if not job.future.done():
            job.future.set_exception(AnalysisStopped())
        self._start_next()

    def _new_worker(self) -> _Worker:
        started, self._started = self._started, None
        return _Worker(self._answered, self._exited, started)

    def _start_next(self) -> None:
        while self._running is None and self._queue:
            job = heapq.heappop(self._queue)
            if job.future.done():
                continue
            if job.superseded():
                job.future.set_exception(AnalysisStopped())
                continue
            if self._worker is None:
                try:
                    self._worker = self._new_worker()
                except OSError as error:  # no process can be started: analyse in the server
                    self.deaths += 1
                    job.future.set_exception(WorkerLost(f"cannot start: {error}"))
                    continue
            self._running = job
            self._worker.send_job(job)

    def _answered(self, worker: _Worker, answer: tuple[Any, ...]) -> None:
        if answer == _READY:
            worker.ready = True
            return
        job = self._running
        if worker is not self._worker or job is None or answer[0] != job.number:
            return
        if answer[1] == "resend":  # the worker does not hold the text the edit was made to
            worker.send_job(job, whole=True)
            return
        self._running = None
        if not job.future.done():
            kind = answer[1]
            if kind == "done":
                job.future.set_result(answer[2])
            elif kind == "stopped":
                job.future.set_exception(AnalysisStopped())
            else:
                job.future.set_exception(RuntimeError(f"the worker's analysis failed: {answer[2]}"))
        self._start_next()

    def _exited(self, worker: _Worker) -> None:
        if worker is self._spare:
            self._spare = None
        if worker is not self._worker:
            return
        self._worker = None
        self.deaths += 1
        job, self._running = self._running, None
        if job is not None and not job.future.done():
            job.future.set_exception(WorkerLost(f"exit status {worker.process.poll()}"))
        self._start_next()


class _Worker:
    """The worker process with a thread writing to it and one reading its answers (neither
    ever blocks the event loop)."""

    def __init__(
        self,
        answered: Callable[[_Worker, tuple[Any, ...]], None],
        exited: Callable[[_Worker], None],
        process: subprocess.Popen[bytes] | None = None,
    ) -> None:
        loop = asyncio.get_running_loop()
        self.ready = False  # set when it has imported the analysis and can start a job at once
        # the text of the job sent last, which the answer read next is about (`_AnswerUnpickler`)
        self.asked: str | None = None
        # per document, the job that last sent the worker its text, and that text (`_Edit`)
        self._sent: dict[str, tuple[int, str]] = {}
        # `serve` starts the first one before the server has loaded (`start_analysis_process`)
        self.process = process or start_analysis_process()
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

        def write() -> None:
            stdin = self.process.stdin
            assert stdin is not None
            while (frame := self._outbox.get()) is not None:
                try:
                    stdin.write(frame)
                    stdin.flush()
                except OSError:
                    return  # the reader sees the exit
            with contextlib.suppress(OSError):
                stdin.close()

        def read() -> None:
            stdout = self.process.stdout
            assert stdout is not None
            with contextlib.suppress(RuntimeError):  # the loop closed: no one is listening
                while (answer := _read_frame(stdout, self._unpickled)) is not None:
                    loop.call_soon_threadsafe(answered, self, answer)
                self.process.wait()
                loop.call_soon_threadsafe(exited, self)

        threading.Thread(target=write, name="analysis-process-writer", daemon=True).start()
        threading.Thread(target=read, name="analysis-process-reader", daemon=True).start()

    def send(self, message: tuple[Any, ...]) -> None:
        self._outbox.put(_frame(message))

    def send_job(self, job: _Job, whole: bool = False) -> None:
        """Send `job`, its text as an edit of the document's text sent before unless `whole`.
        Its answer is read before the next job is sent."""
        self.asked = job.text
        sent: str | _Edit = job.text
        if job.path is not None:
            before = None if whole else self._sent.pop(job.path, None)
            if before is not None:
                start, old_end, new_end = changed_span(before[1], job.text)
                sent = _Edit(before[0], start, old_end, job.text[start:new_end])
            _remember(self._sent, job.path, (job.number, job.text))
        self.send(("analyze", job.number, sent, job.path, job.question))

    def _unpickled(self, body: bytes) -> Any:
        return _AnswerUnpickler(body, self.asked).load()

    def kill(self) -> None:
        self._outbox.put(None)
        _kill(self.process)


def _kill(process: subprocess.Popen[bytes]) -> None:
    process.kill()
    process.wait()


def _read_frame(stream: IO[bytes], unpickled: Callable[[bytes], Any] = pickle.loads) -> Any:
    """One pickled message, or None at the end of the stream. Only this package's two
    processes speak on these pipes, so unpickling trusts the sender."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (length,) = _HEADER.unpack(header)
    body = stream.read(length)
    if len(body) < length:
        return None
    return unpickled(body)


class _Edit(NamedTuple):
    """A job's text sent as an edit of an earlier job's text of the same document: that text
    with `[start:end]` replaced by `inserted`. The worker keeps each document's last text
    (`_Texts`); the whole text of a 1,000-node document took ~1 ms per keystroke to send and
    read. A worker that does not have that text (a new one, or one that forgot the
    document) answers "resend", and the server sends the whole text."""

    base: int  # the number of the job whose text this edits
    start: int
    end: int
    inserted: str


def _remember(kept: dict[str, T], path: str, value: T) -> list[T]:
    """Keep `value` as `path`'s, the most recent; forget the least recent beyond
    `KEPT_ANALYSES` documents. What it no longer keeps: `path`'s earlier value, and those
    forgotten."""
    dropped = [kept.pop(path)] if path in kept else []
    kept[path] = value
    while len(kept) > KEPT_ANALYSES:
        dropped.append(kept.pop(next(iter(kept))))
    return dropped


class _Texts:
    """The worker's side of `_Edit`: each document's last text and the job that sent it."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[int, str]] = {}

    def received(self, number: int, sent: str | _Edit, path: str | None) -> str | None:
        """The text of job `number`, or None when `sent` edits a text this worker does not
        hold."""
        if isinstance(sent, _Edit):
            held = self._held.get(path) if path is not None else None
            if held is None or held[0] != sent.base:
                return None
            text = held[1][: sent.start] + sent.inserted + held[1][sent.end :]
        else:
            text = sent
        if path is not None:
            _remember(self._held, path, (number, text))
        return text


# The worker's answer is about the text the server sent it: that text does not go back (it was
# as long again as the rest of a 1,000-node answer, and reading it took the server ~1 ms, more
# on a busy machine); a `SourceText` of it travels as its line starts only, and the server puts
# its own copy of the text back in (`_AnswerUnpickler`).


def _reduce_source(asked: str, source: SourceText) -> Any:
    if source.text == asked:
        return _asked_source, (source.line_starts,)
    return source.__reduce_ex__(pickle.HIGHEST_PROTOCOL)


def _asked_source(asked: str, line_starts: list[int]) -> SourceText:
    """The `SourceText` of the job's text with the line starts the worker found, built as
    unpickling builds one (without `__init__`, which would find them again)."""
    source: SourceText = object.__new__(SourceText)
    source.text, source.line_starts = asked, line_starts
    return source


class _AnswerUnpickler(pickle.Unpickler):
    def __init__(self, body: bytes, asked: str | None) -> None:
        super().__init__(io.BytesIO(body))
        self._asked = asked

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == _asked_source.__name__:
            if self._asked is None:
                raise pickle.UnpicklingError("an answer about a text no job sent")
            return partial(_asked_source, self._asked)
        return super().find_class(module, name)


def diagnosis_of(result: AnalysisResult) -> Diagnosis:
    """What the server needs to publish `result`'s diagnostics, small to send back: no model,
    and no more of one rule's diagnostics than a client is shown (a file with an unknown key on
    each of 128,000 lines took 3.4 s to unpickle, holding the server's interpreter lock)."""
    kept: list[Diagnostic] = []
    counts: dict[str, int] = {}
    for diagnostic in result.diagnostics:
        counts[diagnostic.rule] = counts.get(diagnostic.rule, 0) + 1
        if counts[diagnostic.rule] <= MAX_DIAGNOSTICS:
            kept.append(diagnostic)
    model_free = AnalysisResult(
        result.source, result.path, YamlDocument(result.source, None, []), None, None,
        kept, result.suppressed[:MAX_DIAGNOSTICS],
    )
    omitted = {rule: count - MAX_DIAGNOSTICS for rule, count in counts.items()
               if count > MAX_DIAGNOSTICS}
    return Diagnosis(model_free, omitted)


class KeptAnalyses:
    """The analysis process's memory: the last analysis of each of the `KEPT_ANALYSES` most
    recent documents, and the last one of each that had a model.

    The next version of a document re-reads only the YAML an edit changed (analysis.analyze's
    `previous`); the same text is not analysed again (a question asked about the version just
    diagnosed); a question about a text whose YAML does not parse is answered from the last
    model, as the server answers requests from its last good snapshot."""

    def __init__(self) -> None:
        # path → (last analysis, last analysis with a model), the most recent document last
        self._kept: dict[str, tuple[AnalysisResult, AnalysisResult | None]] = {}
        # entries no longer kept, until `release`
        self._dropped: list[tuple[AnalysisResult, AnalysisResult | None]] = []

    def analysis(self, text: str, path: str | None, should_stop: Callable[[], bool]
                 ) -> AnalysisResult:
        """The analysis of `text` (kept unless `path` is None: nothing says which document)."""
        if path is None:
            return analyze(text, path, should_stop)
        last, good = self._kept.get(path, (None, None))
        # `last` is this memory's alone (questions are answered before the next job), so the
        # analysis may take over its tree (moved in place, not copied); stopped, it gives it
        # back as it was. `good` is never given up: it is `last` only while `last` has a model,
        # and an analysis that moves any of it read the edit alone, so it has one and replaces
        # `good`.
        result = (
            last if last is not None and last.source.text == text
            else analyze(text, path, should_stop, last, take_over=True)
        )
        self._dropped += _remember(
            self._kept, path, (result, result if result.workflow is not None else good))
        return result

    def release(self) -> None:
        """Free the analyses no longer kept. The worker calls this once its answer is sent:
        freeing the previous version's analysis (what the new one did not take over) took
        8 ms of each 1-character edit's round trip at 1,000 nodes."""
        self._dropped.clear()

    def last_model(self, path: str | None) -> AnalysisResult | None:
        return self._kept[path][1] if path is not None and path in self._kept else None


def _answer(kept: KeptAnalyses, number: int, text: str, path: str | None,
            question: Question | None, should_stop: Callable[[], bool]) -> tuple[Any, ...]:
    """The worker's answer to one job."""
    try:
        result = kept.analysis(text, path, should_stop)
        if question is None:
            return (number, "done", diagnosis_of(result))
        answered = result if result.workflow is not None else kept.last_model(path) or result
        return (number, "done",
                Answer(diagnosis_of(answered), question(answered), answered is result))
    except AnalysisStopped:
        return (number, "stopped")
    except Exception as error:  # analyze() promises not to raise; never lose the job
        return (number, "failed", f"{type(error).__name__}: {error}")


def worker_main() -> None:
    """The analysis process: jobs in, diagnoses and answers out (see `AnalysisProcess`)."""
    from analysis.checks.analyze import tune_collector
    from analysis.checks.registry import (
        RULES,  # imported by the first analysis: imported before "ready"
    )

    assert RULES
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # stdout carries the answers: a stray print must not go there
    jobs: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
    cancelled: set[int] = set()
    texts = _Texts()

    def read() -> None:
        while (message := _read_frame(stdin)) is not None:
            if message[0] == "cancel":
                cancelled.add(message[1])
            else:
                _, number, sent, path, question = message
                # in the order sent, whether or not the job runs: the server edits the last one
                jobs.put((number, texts.received(number, sent, path), path, question))
        os._exit(0)  # the server is gone: stop now, even in the middle of an analysis

    tune_collector()
    threading.Thread(target=read, name="jobs", daemon=True).start()
    _write_frame(stdout, _READY)
    kept = KeptAnalyses()
    while True:
        number, text, path, question = jobs.get()
        if text is None:
            _write_frame(stdout, (number, "resend"))
            continue
        answer = _answer(kept, number, text, path, question,
                         partial(cancelled.__contains__, number))
        cancelled.discard(number)
        _write_frame(stdout, answer, text)
        kept.release()


def _write_frame(stream: IO[bytes], message: tuple[Any, ...], asked: str | None = None) -> None:
    stream.write(_frame(message, asked))
    stream.flush()


def _frame(message: tuple[Any, ...], asked: str | None = None) -> bytes:
    """`message` pickled behind its length; with `asked` (the job's text, in the worker), a
    `SourceText` of that text without the text."""
    buffer = io.BytesIO()
    buffer.write(bytes(_HEADER.size))
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    if asked is not None:
        # per type, looked up in C: no call for every object, as `persistent_id` would make
        pickler.dispatch_table = {
            **copyreg.dispatch_table, SourceText: partial(_reduce_source, asked)
        }
    pickler.dump(message)
    length = buffer.tell() - _HEADER.size
    buffer.seek(0)
    buffer.write(_HEADER.pack(length))
    return buffer.getvalue()
