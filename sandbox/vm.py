"""One evaluation in a fresh QuickJS runtime: the driver, both native calls, one wall deadline.

This module is all a worker process imports (no parser, no tree-sitter). Thread-safe: every call
builds, uses and drops its own runtime on the calling thread.
"""

from __future__ import annotations

import time
from importlib.resources import files
from typing import Any

import quickjs

from sandbox.errors import SandboxError
from sandbox.limits import MEMORY_LIMIT_BYTES, STACK_LIMIT_BYTES, TIME_LIMIT_MS
from sandbox.transport import Kind, decode, serialization_failed

# Whole-line comments are dropped: the driver is compiled once per evaluation, and parsing it is
# a measurable share of the latency.
DRIVER = "\n".join(
    line
    for line in files("sandbox").joinpath("driver.js").read_text(encoding="utf-8").splitlines()
    if not line.lstrip().startswith("//")
)
TIME_LIMIT_SECONDS = TIME_LIMIT_MS / 1000
# The interrupt marker of the engine's own deadline; authored code cannot throw it uncatchably.
INTERRUPTED = "InternalError: interrupted"
MEMORY_MARKERS = ("InternalError: out of memory", "InternalError: string too long", "null")
STACK_MARKERS = ("RangeError: Maximum call stack size exceeded", "InternalError: stack overflow")


class _EarlyInterrupt(Exception):
    """The engine's interrupt fired while wall-clock budget remained."""


def run_request(request: str, kind: Kind) -> Any:
    """Run a prepared VM request (see `sandbox.evaluator.prepare`); raises only SandboxError."""
    deadline: float | None = None
    while True:
        context = quickjs.Context()
        context.set_memory_limit(MEMORY_LIMIT_BYTES)
        context.set_max_stack_size(STACK_LIMIT_BYTES)
        try:
            driver = context.eval(DRIVER)  # compiles the driver; runs nothing authored
        except Exception as error:
            raise SandboxError(
                "memory", f"{type(error).__name__} while loading the driver"
            ) from None
        # The deadline bounds execution, not the first runtime's construction.
        if deadline is None:
            deadline = time.monotonic() + TIME_LIMIT_SECONDS
        try:
            return _attempt(context, driver, request, kind, deadline)
        except _EarlyInterrupt:
            # QuickJS's limit counts the CPU time of the whole process, which concurrent threads
            # advance faster than the wall clock. The evaluation is a pure function of the
            # request, so rerunning it in a fresh runtime under the wall time left is invisible,
            # and a timeout is only ever reported once the wall-clock deadline has passed.
            continue


def _attempt(
    context: quickjs.Context, driver: Any, request: str, kind: Kind, deadline: float
) -> Any:
    _limit_to(context, deadline)
    try:
        completion = driver(request)
    except quickjs.JSException as error:
        report = str(error)
        if report.startswith(INTERRUPTED):
            _raise_if_early(deadline)
            raise SandboxError("timeout", "interrupted at the deadline") from None
        raise _escaped(report) from None
    except Exception as error:  # the binding's own conversion failures
        raise SandboxError("memory", f"{type(error).__name__} in the host binding") from None
    if isinstance(completion, quickjs.Object):
        completion = _serialize(context, completion, kind, deadline)
    return decode(completion, kind)


def _serialize(context: quickjs.Context, serializer: Any, kind: Kind, deadline: float) -> Any:
    """Phase 2: run the private serializer under what is left of the original budget."""
    _limit_to(context, deadline)
    try:
        return serializer()
    except quickjs.JSException as error:
        report = str(error)
        if report.startswith(INTERRUPTED):
            _raise_if_early(deadline)
            # An interrupted serialization keeps the baseline disposition; no new deadline.
            raise serialization_failed(kind) from None
        raise _escaped(report) from None
    except Exception as error:
        raise SandboxError("memory", f"{type(error).__name__} in the host binding") from None


def _limit_to(context: quickjs.Context, deadline: float) -> None:
    # QuickJS's own limit restarts at each native call: give it the wall time that is left.
    context.set_time_limit(max(deadline - time.monotonic(), 0.001))


def _raise_if_early(deadline: float) -> None:
    if time.monotonic() < deadline:
        raise _EarlyInterrupt


def _escaped(report: str) -> SandboxError:
    """Classify what escaped the driver's catch-all: only engine-made failures can."""
    first_line = report.partition("\n")[0]
    if first_line.startswith(MEMORY_MARKERS):
        return SandboxError("memory", first_line)
    if first_line.startswith(STACK_MARKERS):
        return SandboxError("stack", first_line)
    return SandboxError("runtime", first_line)
