"""`WorkerPool`: evaluations in persistent subprocesses that a host watchdog can kill.

Some native loops ignore QuickJS's interrupt (`new Array(2**32-1).join()`, `[].concat` of a huge
spreadable array-like), and a native crash would take the caller down with it. The pool runs each
evaluation in a worker process, kills a worker that has not answered by the wall-clock deadline
plus a grace period (a retryable `timeout`), and replaces any worker that dies. Any other death is
a fatal resource failure (`memory`); the next evaluation gets a fresh worker.

Thread-safe: any number of threads may call `evaluate`/`run` concurrently; each call has a
worker to itself, and callers beyond `size` wait for one. A pool made with `warm=True` starts its
workers at once: they import while the caller reads and analyses its file, instead of on the
first evaluation's path.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, overload

from sandbox.errors import DETAIL_TEXT_LIMIT, REASONS, FailureSite, SandboxError
from sandbox.evaluator import failed_outcome, prepare
from sandbox.limits import TIME_LIMIT_MS
from sandbox.outcome import Outcome, decode_value
from sandbox.scope import Scope
from sandbox.subprocess_worker import kill_worker, start_python_worker
from sandbox.transport import Kind, serialization_failed
from sandbox.worker import SERIALIZE_PHASE

DEFAULT_GRACE_MS = 500
# One worker per core, up to the engine's default `max_parallel` (a whole dry run has at most
# that many evaluations in flight): what a one-shot command that dry-runs a workflow needs.
CORE_WORKERS = max(1, min(os.cpu_count() or 1, 8))
# How long a new worker may take to import before it counts as dead.
STARTUP_TIMEOUT_S = 30.0
# The worker runs exactly the `sandbox` package this process imported, however it is installed.
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)


class _WorkerDied(Exception):
    pass


class _Worker:
    def __init__(self) -> None:
        self.process = start_python_worker(
            _PACKAGE_ROOT, "sandbox.worker", "main", stderr=subprocess.DEVNULL
        )
        self._buffer = bytearray()  # appended in place: a large result arrives in many chunks
        self._ready = False
        self.phase = "evaluate"

    def call(self, kind: Kind, request: str, timeout_s: float) -> dict[str, Any] | None:
        """The worker's response, or None if it did not answer within `timeout_s`.

        Progress lines (`{"phase": ...}`) are recorded in `self.phase`, not returned.
        """
        self.phase = "evaluate"
        if not self._ready:
            if self._read_line(time.monotonic() + STARTUP_TIMEOUT_S) is None:
                raise _WorkerDied("the worker did not start")
            self._ready = True
        stdin = self.process.stdin
        assert stdin is not None
        try:
            # The request is ASCII JSON on one line (see Scope.vm_request): sent as it is, not
            # escaped into a string of another JSON message.
            stdin.write(
                json.dumps({"kind": kind}).encode("ascii") + b"\n" + request.encode("ascii") + b"\n"
            )
            stdin.flush()
        except OSError:
            raise _WorkerDied("the worker closed its input") from None
        deadline = time.monotonic() + timeout_s
        while True:
            line = self._read_line(deadline)
            if line is None:
                return None
            try:
                response = json.loads(line)
            except ValueError:
                raise _WorkerDied("the worker wrote a malformed response") from None
            if not isinstance(response, dict):
                raise _WorkerDied("the worker wrote a malformed response")
            if response == SERIALIZE_PHASE:
                self.phase = "serialize"
                continue
            return response

    def _read_line(self, deadline: float) -> bytes | None:
        stdout = self.process.stdout
        assert stdout is not None
        searched = 0
        while (newline := self._buffer.find(b"\n", searched)) < 0:
            searched = len(self._buffer)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            readable, _, _ = select.select([stdout], [], [], remaining)
            if readable:
                chunk = os.read(stdout.fileno(), 1 << 16)
                if not chunk:
                    raise _WorkerDied(f"the worker exited ({self.process.wait()})")
                self._buffer += chunk
        line = bytes(self._buffer[:newline])
        del self._buffer[: newline + 1]
        return line

    def kill(self) -> None:
        kill_worker(self.process)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


class WorkerPool:
    """Up to `size` worker processes; see the module docstring for the failure contract."""

    def __init__(
        self, size: int = 1, *, grace_ms: int = DEFAULT_GRACE_MS, warm: bool = False
    ) -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self.size = size
        self.deadline_s = (TIME_LIMIT_MS + grace_ms) / 1000
        self._idle: list[_Worker] = []
        self._started = 0
        self._closed = False
        self._changed = threading.Condition()
        if warm:
            for _ in range(size):
                self._prestart()

    @overload
    def evaluate(
        self, source: str, kind: Kind, scope: Scope, *, with_detail: Literal[False] = False
    ) -> Any: ...

    @overload
    def evaluate(
        self, source: str, kind: Kind, scope: Scope, *, with_detail: Literal[True]
    ) -> Outcome: ...

    def evaluate(self, source: str, kind: Kind, scope: Scope, *, with_detail: bool = False) -> Any:
        """Like `sandbox.evaluate`, in a worker. Raises only SandboxError.

        With `with_detail`, returns an Outcome with the author detail instead (see `run`).
        """
        if with_detail:
            return self.run(source, kind, scope, with_detail=True)
        request = prepare(source, kind, scope)
        worker = self._acquire()
        healthy = False
        try:
            response = worker.call(kind, request, self.deadline_s)
            if response is None and worker.phase == "serialize":
                # The spec keeps the baseline disposition for a serializer that cannot finish.
                raise serialization_failed(kind)
            if response is None:
                raise SandboxError("timeout", "the worker was killed at the deadline")
            healthy = True
        except _WorkerDied as death:
            raise SandboxError("memory", f"the worker died: {death}") from None
        finally:
            self._release(worker, healthy)
        return _decode(response)

    def run(
        self, source: str, kind: Kind, scope: Scope, *, with_detail: bool = False
    ) -> Outcome:
        """`evaluate` as an Outcome: never raises SandboxError. With `with_detail`, a failure's
        Outcome carries the author detail (`Outcome.detail`)."""
        try:
            return Outcome(value=self.evaluate(source, kind, scope))
        except SandboxError as error:
            return failed_outcome(source, error) if with_detail else Outcome(error=error)

    def close(self) -> None:
        """Stop every idle worker; workers still in use stop when released."""
        with self._changed:
            self._closed = True
            idle, self._idle = self._idle, []
            self._started -= len(idle)
            self._changed.notify_all()
        for worker in idle:
            worker.kill()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _acquire(self) -> _Worker:
        with self._changed:
            while True:
                if self._closed:
                    raise RuntimeError("the worker pool is closed")
                if self._idle:
                    worker = self._idle.pop()
                    if worker.process.poll() is None:
                        return worker
                    # Died while idle (killed from outside): not this evaluation's failure.
                    self._started -= 1
                    continue
                if self._started < self.size:
                    self._started += 1
                    break
                self._changed.wait()
        try:
            return _Worker()
        except BaseException:
            with self._changed:
                self._started -= 1
                self._changed.notify()
            raise

    def _release(self, worker: _Worker, healthy: bool) -> None:
        if not healthy:
            worker.kill()
        with self._changed:
            keep = healthy and not self._closed
            if keep:
                self._idle.append(worker)
            else:
                self._started -= 1
            self._changed.notify()
        if healthy and not keep:
            worker.kill()
        if not healthy:
            self._prestart()

    def _prestart(self) -> None:
        """Start a replacement now, so it imports while nobody waits on it (best effort)."""
        with self._changed:
            if self._closed or self._started >= self.size:
                return
            self._started += 1
        try:
            replacement = _Worker()
        except OSError:
            with self._changed:
                self._started -= 1
            return
        with self._changed:
            if not self._closed:
                self._idle.append(replacement)
                self._changed.notify()
                return
            self._started -= 1
        replacement.kill()


def _decode(response: dict[str, Any]) -> Any:
    try:
        if response["ok"] is True:
            return decode_value(response)
        reason, detail = response["reason"], response["detail"]
    except (KeyError, TypeError, ValueError):
        raise SandboxError("runtime", "malformed worker response") from None
    if reason not in REASONS or not (detail is None or isinstance(detail, str)):
        raise SandboxError("runtime", "malformed worker response")
    raise SandboxError(reason, detail, _site(response.get("site")))


def _site(encoded: object) -> FailureSite | None:
    if not isinstance(encoded, dict):
        return None
    cls, message, position = encoded.get("class"), encoded.get("message"), encoded.get("position")
    if not isinstance(cls, str) or not isinstance(message, str):
        return None
    engine_position = None
    if isinstance(position, list) and len(position) == 2:
        line, column = position
        if type(line) is int and type(column) is int:
            engine_position = (line, column)
    return FailureSite(cls[:DETAIL_TEXT_LIMIT], message[:DETAIL_TEXT_LIMIT], engine_position)
