"""One evaluation in a fresh QuickJS runtime: the driver, both native calls, one wall deadline.

This module is all a worker process imports (not the syntax check). Thread-safe: every call
builds, uses and drops its own runtime on the calling thread.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from importlib.resources import files
from typing import Any

import quickjs

from sandbox.errors import SandboxError
from sandbox.limits import MEMORY_LIMIT_BYTES, STACK_LIMIT_BYTES, TIME_LIMIT_MS
from sandbox.transport import Kind, decode, serialization_failed, type_verdict
from sandbox.wall_clock import Watchdog

# Whole-line comments are dropped: the driver is compiled once per evaluation, and parsing it is
# a measurable share of the latency.
DRIVER = "\n".join(
    line
    for line in files("sandbox").joinpath("driver.js").read_text(encoding="utf-8").splitlines()
    if not line.lstrip().startswith("//")
)
TIME_LIMIT_SECONDS = TIME_LIMIT_MS / 1000
# The binding's interrupt handler compares process CPU time (`clock()`) with the limit it was given;
# this much below it still counts as the handler having fired (clock granularity).
CPU_CLOCK_SLACK_SECONDS = 0.005


# Every in-process native call of an evaluation, from any thread, is watched here, on the clock
# its deadline is taken on (looked up at each reading: tests replace this module's clock).
WATCHDOG = Watchdog(lambda: time.monotonic())


class _EarlyInterrupt(Exception):
    """The engine's interrupt fired while wall-clock budget remained."""


def new_context() -> quickjs.Context:
    """A fresh runtime and context under the memory and stack caps."""
    context = quickjs.Context()
    context.set_memory_limit(MEMORY_LIMIT_BYTES)
    context.set_max_stack_size(STACK_LIMIT_BYTES)
    return context


def locked_down_context() -> tuple[quickjs.Context, Any]:
    """A fresh context with the driver loaded and the context locked down, and the driver's
    evaluate function. Nothing authored has run; nothing here depends on a request."""
    context = new_context()
    try:
        return context, context.eval(DRIVER)
    except Exception as error:
        # Only a resource failure can stop the driver's own setup in a fresh context.
        raise SandboxError("memory", f"{type(error).__name__} while loading the driver") from None


class ContextSupply:
    """Fresh locked-down contexts, each handed out once, prepared before they are asked for.

    Building one (a runtime, the driver compiled, the lockdown run) is most of an evaluation's
    cost and depends on nothing in the request, so it is done while nobody waits: `take` hands
    out the context prepared earlier (or builds one when none is ready); `retire` hands back a
    used context once the evaluation is over and asks a helper thread to dispose of it and to
    prepare the next. The helper never works while an evaluation runs on its account, so it
    takes no CPU time from one (QuickJS's interrupt counts the whole process's). A context is
    never handed out twice and a used one is never reused.
    """

    def __init__(self) -> None:
        self._start_empty()
        # A forked child has no helper thread and may have copied a spare being built or a held
        # lock: it starts empty.
        os.register_at_fork(after_in_child=self._start_empty)

    def _start_empty(self) -> None:
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._ready: tuple[quickjs.Context, Any] | None = None
        self._building = False
        self._retired: list[quickjs.Context] = []
        self._asked = threading.Event()
        self._helper: threading.Thread | None = None

    def take(self) -> tuple[quickjs.Context, Any]:
        """A locked-down context nobody has used, and its driver; raises SandboxError."""
        with self._lock:
            # One being prepared is ready sooner than a new one would be.
            while self._ready is None and self._building:
                self._changed.wait()
            prepared, self._ready = self._ready, None
        return prepared if prepared is not None else locked_down_context()

    def retire(self, context: quickjs.Context) -> None:
        """Dispose of a used context later (when its last reference is gone by then), and have
        the next one prepared."""
        with self._lock:
            self._retired.append(context)
        self._ask()

    def restock(self) -> None:
        """Dispose of the retired contexts and prepare the next one, if none is ready or being
        prepared. The helper thread calls this when asked; a process may call it up front."""
        with self._lock:
            retired, self._retired = self._retired, []
            missing = self._ready is None and not self._building
            self._building = self._building or missing
        retired.clear()
        if not missing:
            return
        prepared = None
        try:
            prepared = locked_down_context()
        except SandboxError:
            pass  # the evaluation that finds none builds its own and reports the failure
        finally:
            with self._lock:
                self._building = False
                self._ready = prepared
                self._changed.notify_all()

    def _ask(self) -> None:
        with self._lock:
            if self._helper is None:
                self._helper = threading.Thread(
                    target=self._serve, name="sandbox-context-supply", daemon=True
                )
                self._helper.start()
        self._asked.set()

    def _serve(self) -> None:
        while True:
            self._asked.wait()
            self._asked.clear()
            try:
                self.restock()
            except Exception:
                # Never stop serving (after a host MemoryError, say): retired runtimes would pile
                # up. A caller that finds no spare builds its own.
                continue


# Every evaluation in this process (from any thread) takes its context from here.
SUPPLY = ContextSupply()


def run_request(
    request: str,
    kind: Kind,
    on_serialize: Callable[[], None] | None = None,
    supply: ContextSupply = SUPPLY,
) -> Any:
    """Run a prepared VM request (see `sandbox.evaluator.prepare`); raises only SandboxError.

    `on_serialize` is called when the private serializer is about to run, so that a watchdog
    that kills the evaluation from outside can keep the spec's disposition for that phase.
    Each attempt runs in a fresh context from `supply`, retired to it afterwards.
    """
    deadline: float | None = None
    while True:
        context, driver = supply.take()
        # The deadline bounds execution, not the runtime's construction.
        if deadline is None:
            deadline = time.monotonic() + TIME_LIMIT_SECONDS
        try:
            return _attempt(context, driver, request, kind, deadline, on_serialize)
        except _EarlyInterrupt:
            # QuickJS's limit counts the CPU time of the whole process, which concurrent threads
            # advance faster than the wall clock. The evaluation is a pure function of the
            # request, so rerunning it in a fresh runtime under the wall time left is invisible,
            # and a timeout is only ever reported once the wall-clock deadline has passed.
            continue
        finally:
            # The supply disposes of it; keep no reference that would free it here.
            del driver
            supply.retire(context)
            del context


def _attempt(
    context: quickjs.Context,
    driver: Any,
    request: str,
    kind: Kind,
    deadline: float,
    on_serialize: Callable[[], None] | None,
) -> Any:
    completion = _native_step(context, driver, (request,), deadline)
    if completion is _INTERRUPTED:
        raise SandboxError("timeout", "interrupted at the deadline")
    if isinstance(completion, quickjs.Object):
        if time.monotonic() >= deadline:
            raise _returned_past_deadline(context, completion, kind)
        if on_serialize is not None:
            on_serialize()
        return _serialize(context, completion, kind, deadline)
    # A failure or a denial stays what it is even past the deadline: outlasting the cap does not
    # make a deterministic failure retryable.
    return decode(completion, kind)


def _returned_past_deadline(context: quickjs.Context, serializer: Any, kind: Kind) -> SandboxError:
    """The verdict of an expression that returned after the deadline, in a native step that
    never polled the interrupt.

    No authored code runs past the deadline (the serializer gets no new budget), and no value is
    returned past the cap. What was decided when the expression returned stands: a denial
    observed while it ran (the driver then answers with the denied arm, not the serializer, so
    it never reaches here) and a result its VM type alone refuses (`result_type`,
    `non_serializable`: deterministic, and outlasting the cap does not make a deterministic
    failure retryable). Only a result the serializer would have had to decide is `timeout`.
    """
    # The type-only call runs the driver's own constant-time code: it needs no time limit, and
    # one would count other threads' CPU time.
    context.set_time_limit(-1)
    try:
        transport = serializer(True)
    except Exception as error:  # the binding's own conversion failures
        raise SandboxError("memory", f"{type(error).__name__} in the host binding") from None
    verdict = type_verdict(transport, kind)
    return verdict or SandboxError("timeout", "the deadline passed during a native step")


def _serialize(context: quickjs.Context, serializer: Any, kind: Kind, deadline: float) -> Any:
    """Phase 2: run the private serializer under what is left of the original budget."""
    transport = _native_step(context, serializer, (), deadline)
    if transport is _INTERRUPTED:
        # An interrupted serialization keeps the baseline disposition; no new deadline.
        raise serialization_failed(kind)
    value = decode(transport, kind)  # a completed closure's denial wins, even past the deadline
    if time.monotonic() >= deadline:
        raise serialization_failed(kind)
    return value


class _Interrupted:
    """The engine's deadline interrupt ended a native step."""


_INTERRUPTED = _Interrupted()


def _native_step(
    context: quickjs.Context, function: Any, args: tuple[str, ...], deadline: float
) -> Any:
    """Call into the VM under the wall time left: its return value, or `_INTERRUPTED`.

    The driver catches every catchable exception, so the only one that can reach the host is the
    engine's uncatchable interrupt; its text is never read. The host confirms that the handler
    fired: the wall-clock watchdog tripped it, or the process CPU clock it compares reached the
    limit it was given; an interrupt while wall-clock budget remains reruns the evaluation.
    """
    limit = max(deadline - time.monotonic(), 0.001)
    # QuickJS's own limit restarts at each native call: give it the wall time that is left. It
    # counts CPU time, which a loaded machine hands out slower than the wall clock runs: the
    # watchdog interrupts the call at the wall-clock deadline.
    context.set_time_limit(limit)
    cpu_start = time.process_time()
    call = WATCHDOG.arm(context, deadline)
    try:
        try:
            return function(*args)
        finally:
            tripped = WATCHDOG.disarm(call)
    except quickjs.JSException:
        handler_fired = (
            tripped or time.process_time() - cpu_start >= limit - CPU_CLOCK_SLACK_SECONDS
        )
        if not handler_fired:
            raise SandboxError("runtime", "an engine exception escaped the driver") from None
        if time.monotonic() < deadline:
            raise _EarlyInterrupt from None
        return _INTERRUPTED
    except Exception as error:  # the binding's own conversion failures
        raise SandboxError("memory", f"{type(error).__name__} in the host binding") from None
