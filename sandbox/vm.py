"""One evaluation in a fresh QuickJS runtime: the driver, both native calls, both clocks.

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
_MEMORY_MARKERS = ("InternalError: out of memory", "InternalError: string too long", "null")
_STACK_MARKERS = ("RangeError: Maximum call stack size exceeded", "InternalError: stack overflow")


def run_request(request: str, kind: Kind) -> Any:
    """Run a prepared VM request (see `sandbox.evaluator.prepare`); raises only SandboxError."""
    context = quickjs.Context()
    context.set_memory_limit(MEMORY_LIMIT_BYTES)
    context.set_max_stack_size(STACK_LIMIT_BYTES)
    try:
        driver = context.eval(DRIVER)  # compiles the driver; runs nothing authored
    except Exception as error:
        raise SandboxError("memory", f"{type(error).__name__} while loading the driver") from None
    # The deadline bounds execution, not runtime construction. QuickJS's own limit counts process
    # CPU time and restarts at each native call, so the host keeps both clocks.
    context.set_time_limit(TIME_LIMIT_SECONDS)
    wall_start = time.monotonic()
    cpu_start = time.process_time()
    try:
        completion = driver(request)
    except quickjs.JSException as error:
        raise _escaped(str(error), time.monotonic() - wall_start) from None
    except Exception as error:  # the binding's own conversion failures
        raise SandboxError("memory", f"{type(error).__name__} in the host binding") from None
    if isinstance(completion, quickjs.Object):
        completion = _serialize(context, completion, kind, cpu_start)
    return decode(completion, kind)


def _serialize(context: quickjs.Context, serializer: Any, kind: Kind, cpu_start: float) -> Any:
    """Phase 2: run the private serializer under what is left of the original budget."""
    remaining = TIME_LIMIT_SECONDS - (time.process_time() - cpu_start)
    context.set_time_limit(max(remaining, 0.001))
    try:
        return serializer()
    except quickjs.JSException as error:
        report = str(error)
        if report.startswith(INTERRUPTED):
            # An interrupted serialization keeps the baseline disposition; no new deadline.
            raise serialization_failed(kind) from None
        raise _escaped(report, 0.0) from None
    except Exception as error:
        raise SandboxError("memory", f"{type(error).__name__} in the host binding") from None


def _escaped(report: str, wall_elapsed: float) -> SandboxError:
    """Classify what escaped the driver's catch-all: only engine-made failures can."""
    first_line = report.partition("\n")[0]
    if first_line.startswith(INTERRUPTED):
        if wall_elapsed >= TIME_LIMIT_SECONDS:
            return SandboxError("timeout", "interrupted at the deadline")
        # The CPU clock of a multi-threaded host ran ahead of the wall clock.
        return SandboxError("runtime", "interrupted before the host deadline")
    if first_line.startswith(_MEMORY_MARKERS):
        return SandboxError("memory", first_line)
    if first_line.startswith(_STACK_MARKERS):
        return SandboxError("stack", first_line)
    return SandboxError("runtime", first_line)
