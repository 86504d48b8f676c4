"""The server's side of the analysis process: `AnalysisProcess` diagnoses large documents, and
answers questions about their models, in a worker process of their own.

Threads were not enough for large documents: an analysis of one fills the heap, and the cyclic
collector's pauses (0.3-0.6 s, holding the interpreter lock) stalled every request (measured by
bench/starve.py with bench/server_probe.py). The worker (`server.lsp.worker.main`) computes their
diagnostics instead, and answers questions that need their model there too (an outline, as an
editor showing the document asks after every edit): building those models in the server as well
brought the collector's pauses back, and analysed each version twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from analysis.checks.analyze import AnalysisStopped
from analysis.document.source import changed_span
from sandbox.subprocess_worker import kill_worker
from server.lsp.diagnostics import MAX_DIAGNOSTICS
from server.lsp.worker.framing import read_frame
from server.lsp.worker.spawn import StartedProcess, start_analysis_process
from server.lsp.worker.wire import (
    READY,
    Answer,
    AnswerUnpickler,
    Diagnosis,
    Edit,
    Question,
    frame,
    remember,
)

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
        self._started: StartedProcess | None = None
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

    def adopt(self, process: StartedProcess) -> None:
        """Use `process`, a `start_analysis_process()`, for the next worker."""
        self._started = process

    def close(self) -> None:
        for worker in (self._worker, self._spare):
            if worker is not None:
                worker.kill()
        self._worker = self._spare = None
        if self._started is not None:
            kill_worker(self._started.process)
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
        if answer == READY:
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
        started: StartedProcess | None = None,
    ) -> None:
        loop = asyncio.get_running_loop()
        self.ready = False  # set when it has imported the analysis and can start a job at once
        # the text of the job sent last, which the answer read next is about (`AnswerUnpickler`)
        self.asked: str | None = None
        # per document, the job that last sent the worker its text, and that text (`Edit`)
        self._sent: dict[str, tuple[int, str]] = {}
        # `serve` starts the first one before the server has loaded (`start_analysis_process`)
        self._started = started or start_analysis_process()
        self.process = self._started.process

        def read() -> None:
            stdout = self.process.stdout
            assert stdout is not None
            with contextlib.suppress(RuntimeError):  # the loop closed: no one is listening
                while (answer := read_frame(stdout, self._unpickled)) is not None:
                    loop.call_soon_threadsafe(answered, self, answer)
                self.process.wait()
                loop.call_soon_threadsafe(exited, self)

        threading.Thread(target=read, name="analysis-process-reader", daemon=True).start()

    def send(self, message: tuple[Any, ...]) -> None:
        self._started.send(frame(message))

    def send_job(self, job: _Job, whole: bool = False) -> None:
        """Send `job`, its text as an edit of the document's text sent before unless `whole`.
        Its answer is read before the next job is sent."""
        self.asked = job.text
        sent: str | Edit = job.text
        if job.path is not None:
            before = None if whole else self._sent.pop(job.path, None)
            if before is not None:
                start, old_end, new_end = changed_span(before[1], job.text)
                sent = Edit(before[0], start, old_end, job.text[start:new_end])
            remember(self._sent, job.path, (job.number, job.text))
        self.send(("analyze", job.number, sent, job.path, job.question, MAX_DIAGNOSTICS))

    def _unpickled(self, body: bytes) -> Any:
        return AnswerUnpickler(body, self.asked).load()

    def kill(self) -> None:
        self._started.close_input()
        kill_worker(self.process)

