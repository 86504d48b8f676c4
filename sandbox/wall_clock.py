"""The in-process wall-clock cap: a watchdog that trips the binding's own interrupt at the deadline.

The quickjs binding's only time limit is an interrupt handler that compares the process's CPU
time (`clock()`) with a limit it copies into the context object at the start of every native
call (`InterruptData` in the binding's module.c, quickjs-ng 0.17). Under CPU contention the
process gets a fraction of a core, so that limit is reached many wall seconds after the deadline
(issue 21 item 9: a `for(;;){}` ran 10-17 s). The binding offers no handler of our own and no
call that changes the limit of a running call. So a watchdog thread, at the wall-clock deadline
of a native call still running, sets that copied limit to zero: the binding's handler then
interrupts at its next poll, with the engine's genuine uncatchable interrupt.

That field is written through the context object's memory, the binding's private layout. It is
used only when a probe at first use finds exactly that layout (the object's size, and the flag,
the limit and its per-call copy where `set_time_limit` and a call put them); otherwise
`available()` is False and an in-process evaluation is bounded by CPU time alone (the worker
pool's kill still holds the wall cap).
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Callable

import quickjs

# The binding's context object after the Python object header: runtime and context pointers, the
# `has_time_limit` int (padded), the `time_limit` clock_t, the thread state pointer, then the
# per-call copy {start, limit} and the callables list.
_HEADER = object.__basicsize__
_FLAG_OFFSET = _HEADER + 16
_LIMIT_OFFSET = _HEADER + 24
_THREAD_STATE_OFFSET = _HEADER + 32
_CALL_LIMIT_OFFSET = _HEADER + 48
_CONTEXT_SIZE = _HEADER + 64
# A limit whose clock ticks are exact in binary floating point (CLOCKS_PER_SEC is 10**6 on POSIX).
_PROBE_SECONDS = 1234.5
_PROBE_TICKS = 1_234_500_000


def _int(context: quickjs.Context, offset: int) -> int:
    return ctypes.c_int.from_address(id(context) + offset).value


def _long(context: quickjs.Context, offset: int) -> int:
    return ctypes.c_long.from_address(id(context) + offset).value


def _layout_matches() -> bool:
    """Whether this binding keeps its time limit where the watchdog writes (see the docstring)."""
    if (
        sys.implementation.name != "cpython"
        or ctypes.sizeof(ctypes.c_long) != 8
        or ctypes.sizeof(ctypes.c_void_p) != 8
        or quickjs.Context.__basicsize__ != _CONTEXT_SIZE
    ):
        return False
    context = quickjs.Context()
    fresh = _int(context, _FLAG_OFFSET) == 0 and _long(context, _LIMIT_OFFSET) == 0
    context.set_time_limit(_PROBE_SECONDS)
    limit_set = _int(context, _FLAG_OFFSET) == 1 and _long(context, _LIMIT_OFFSET) == _PROBE_TICKS
    context.eval("0")
    copied = (
        _long(context, _CALL_LIMIT_OFFSET) == _PROBE_TICKS
        and _long(context, _THREAD_STATE_OFFSET) == 0
    )
    context.set_time_limit(-1)
    cleared = _int(context, _FLAG_OFFSET) == 0 and _long(context, _LIMIT_OFFSET) == _PROBE_TICKS
    return fresh and limit_set and copied and cleared


class Call:
    """One native call under the watchdog; `tripped` once the watchdog interrupted it."""

    __slots__ = ("context", "deadline", "tripped")

    def __init__(self, context: quickjs.Context, deadline: float) -> None:
        self.context = context
        self.deadline = deadline
        self.tripped = False


class Watchdog:
    """Interrupts every armed native call that is still running at its deadline on `clock`
    (the clock the deadlines were taken on)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._available: bool | None = None
        self._start_empty()
        # A forked child has no watchdog thread and may have copied a held lock: it starts empty.
        os.register_at_fork(after_in_child=self._start_empty)

    def _start_empty(self) -> None:
        self._changed = threading.Condition(threading.Lock())
        self._armed: list[Call] = []
        self._thread: threading.Thread | None = None

    def available(self) -> bool:
        if self._available is None:
            self._available = _layout_matches()
        return self._available

    def arm(self, context: quickjs.Context, deadline: float) -> Call | None:
        """Watch a native call about to start on `context`; None when the layout is unknown."""
        if not self.available():
            return None
        call = Call(context, deadline)
        with self._changed:
            earliest = all(deadline < armed.deadline for armed in self._armed)
            self._armed.append(call)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="sandbox-wall-clock", daemon=True
                )
                self._thread.start()
            elif earliest:
                self._changed.notify()
        return call

    def disarm(self, call: Call | None) -> bool:
        """Stop watching the call (it has returned); whether the watchdog interrupted it."""
        if call is None:
            return False
        with self._changed:
            if call in self._armed:
                self._armed.remove(call)
            return call.tripped

    def _serve(self) -> None:
        with self._changed:
            while True:
                now = self._clock()
                for call in [armed for armed in self._armed if armed.deadline <= now]:
                    # Under the lock, while armed: the call holds its context alive and has not
                    # been disarmed. The binding copies the limit afresh at every native call, so
                    # a call that returned just now leaves nothing behind for the next one.
                    ctypes.c_long.from_address(id(call.context) + _CALL_LIMIT_OFFSET).value = 0
                    call.tripped = True
                    self._armed.remove(call)
                pending = [armed.deadline for armed in self._armed]
                self._changed.wait(min(pending) - now if pending else None)
