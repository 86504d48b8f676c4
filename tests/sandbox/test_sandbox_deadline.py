"""Issue 9 item 4: the wall-clock cap holds even when a native step never polls the interrupt.

quickjs-ng's JSON.stringify (and other native loops) never check the interrupt, so the engine's
own limit can be overrun by a single long step. The host checks its own deadline after every
native step: an evaluation that overran fails with `timeout`; a serializer that overran keeps
the baseline disposition (`non_serializable` / `result_type`), in-process and in the worker pool.
Which native step overruns is decided by a clock that jumps past the deadline when that step
returns (as a step that never polled the interrupt does) and otherwise runs with this process's
CPU time, so the verdicts do not depend on this machine's speed or load; the steps themselves are
real QuickJS calls. (The worker pool's tests at the end do read the wall clock: the pool's kill at
its deadline is a real-time cap.)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from sandbox import ContextProjection, SandboxError, Scope, WorkerPool, evaluate, vm
from sandbox.transport import Kind

# A native JSON.stringify loop with no interrupt poll inside.
NUMBERS = "Array.from({ length: 200000 }, (_, i) => i * 1.0000001 + 0.1)"


@pytest.fixture
def steps() -> list[str]:
    """The native steps the host ran, in order: "expression" or "serializer"."""
    return []


@pytest.fixture
def overrun(monkeypatch: pytest.MonkeyPatch, steps: list[str]) -> Callable[[str], None]:
    """`overrun("expression")` / `overrun("serializer")`: that native step of every evaluation
    (the authored expression, called with the request; the private serializer, called with no
    arguments) ends after the deadline. Every native step is recorded in `steps`."""

    def install(phase: str) -> None:
        skew = 0.0
        real_step = vm._native_step

        def step_then_overrun(
            context: Any, function: Any, args: tuple[str, ...], deadline: float
        ) -> Any:
            nonlocal skew
            steps.append("expression" if args else "serializer")
            try:
                return real_step(context, function, args, deadline)
            finally:
                if phase == steps[-1]:
                    skew += vm.TIME_LIMIT_SECONDS + 1

        monkeypatch.setattr(vm, "_native_step", step_then_overrun)
        # The host's wall clock is this process's CPU time (other processes' load does not move
        # it, so a step that is not meant to overrun never does) plus the jumps.
        monkeypatch.setattr(vm, "time", SimpleNamespace(
            monotonic=lambda: time.process_time() + skew, process_time=time.process_time))

    return install


def reason(source: str, kind: Kind) -> str:
    with pytest.raises(SandboxError) as caught:
        evaluate(source, kind, Scope())
    return caught.value.reason


@pytest.mark.parametrize("kind", ["condition", "transform"])
def test_an_evaluation_overrunning_in_a_native_step_is_a_timeout(
    kind: Kind, overrun: Callable[[str], None], steps: list[str]
) -> None:
    overrun("expression")
    error_reason = reason(f"JSON.stringify({NUMBERS}).length > 0", kind)
    assert error_reason == "timeout"
    # Stopped at once: neither rerun nor serialized (counted, not timed: a loaded machine
    # makes the one real step slow, not the verdict late).
    assert steps == ["expression"]


def test_a_serializer_overrunning_keeps_the_baseline_disposition(
    overrun: Callable[[str], None]
) -> None:
    overrun("serializer")
    assert reason(NUMBERS, "transform") == "non_serializable"
    assert reason(NUMBERS, "merge") == "non_serializable"


def test_failures_and_denials_past_the_deadline_keep_their_reason(
    overrun: Callable[[str], None]
) -> None:
    overrun("expression")
    # Outlasting the cap does not make a deterministic failure retryable.
    assert reason(f"(() => {{ JSON.stringify({NUMBERS}); throw 1 }})()", "transform") == "runtime"
    scope = Scope(inputs={"key": "s"}, secret_inputs=frozenset({"key"}))
    source = f"(() => {{ JSON.stringify({NUMBERS}); return inputs.key }})()"
    with pytest.raises(SandboxError) as caught:
        evaluate(source, "transform", scope)
    assert caught.value.reason == "secret_context"


SECRET_SCOPE = Scope(
    inputs={"key": "s3cr3t"}, ctx=ContextProjection({}, ("password",), ("password",)),
    secret_inputs=frozenset({"key"}),
)
LONG_STEP = f"JSON.stringify({NUMBERS})"


# Issue 21 item 3: the verdict of an expression that returned past the deadline. The spec's error
# taxonomy: "Private transport selects success, failure or observed denial before ordinary error
# classification", "The retryable timeout requires BOTH the genuine InternalError: interrupted
# marker AND the host deadline having passed", "merely outlasting the deadline does not make a
# deterministic failure retryable"; its secret context boundary: the latch is sticky, "ordinary
# caught reads ... cannot clear it".
@pytest.mark.parametrize(("kind", "source", "expected"), [
    ("transform", f"(() => {{ try {{ inputs.key }} catch (e) {{}} {LONG_STEP}; return 1 }})()",
     "secret_context"),
    ("condition", f"(() => {{ try {{ ctx.password }} catch (e) {{}} {LONG_STEP}; return 1 }})()",
     "secret_context"),
    ("merge", f"(() => {{ try {{ inputs.key }} catch (e) {{}} return {LONG_STEP} }})()",
     "secret_context"),
    ("condition", f"(() => {{ {LONG_STEP}; return {{}} }})()", "result_type"),
    ("condition", f"(() => {{ {LONG_STEP}; return () => 1 }})()", "result_type"),
    ("transform", f"(() => {{ {LONG_STEP}; return undefined }})()", "non_serializable"),
    ("merge", f"(() => {{ {LONG_STEP}; return Symbol() }})()", "non_serializable"),
    ("transform", f"(() => {{ {LONG_STEP}; return 1n }})()", "non_serializable"),
])
def test_what_was_decided_when_the_expression_returned_stands_past_the_deadline(
    kind: Kind, source: str, expected: str,
    overrun: Callable[[str], None], steps: list[str],
) -> None:
    overrun("expression")
    with pytest.raises(SandboxError) as caught:
        evaluate(source, kind, SECRET_SCOPE)
    assert (caught.value.reason, caught.value.retryable) == (expected, False)
    # No authored code ran past the deadline: the serializer step never did.
    assert steps == ["expression"]


@pytest.mark.parametrize(("kind", "source"), [
    ("transform", f"(() => {{ {LONG_STEP}; return {{ a: 1 }} }})()"),
    ("merge", f"(() => {{ {LONG_STEP}; return [1] }})()"),
    ("condition", f"(() => {{ {LONG_STEP}; return 'yes' }})()"),
])
def test_a_result_only_its_serializer_could_decide_is_a_timeout_past_the_deadline(
    kind: Kind, source: str, overrun: Callable[[str], None], steps: list[str]
) -> None:
    overrun("expression")
    with pytest.raises(SandboxError) as caught:
        evaluate(source, kind, Scope())
    assert (caught.value.reason, caught.value.retryable) == ("timeout", True)
    assert steps == ["expression"]


def test_a_getter_the_serializer_would_have_read_is_not_run_past_the_deadline(
    overrun: Callable[[str], None], steps: list[str]
) -> None:
    """Finite observed-access detection: a read that never happened is not a denial. The
    condition's object result is refused by its type, as the engine refuses it."""
    overrun("expression")
    source = f"(() => {{ {LONG_STEP}; return {{ get leak() {{ return inputs.key }} }} }})()"
    with pytest.raises(SandboxError) as caught:
        evaluate(source, "condition", SECRET_SCOPE)
    assert caught.value.reason == "result_type"
    assert steps == ["expression"]


def test_within_the_cap_the_same_steps_succeed(
    monkeypatch: pytest.MonkeyPatch, overrun: Callable[[str], None], steps: list[str]
) -> None:
    """The verdicts above come from the deadline, not from the steps: run with no step
    overrunning, the same evaluation succeeds. What this pins is the steps, not the cap's value,
    so the cap is made ample: on a loaded machine the real steps can take longer than the
    engine's one second (the cap itself is pinned by the clock-jumping tests above)."""
    monkeypatch.setattr(vm, "TIME_LIMIT_SECONDS", 600.0)
    overrun("none")
    assert evaluate(f"JSON.stringify({NUMBERS}).length > 0", "condition", Scope()) is True
    assert evaluate(NUMBERS, "transform", Scope())[-1] > 0
    assert steps == ["expression", "serializer", "expression", "serializer"]


@pytest.mark.parametrize(("kind", "expected"), [("transform", "non_serializable"),
                                                ("condition", "result_type")])
def test_a_worker_killed_in_the_serializer_keeps_the_baseline_disposition(
    kind: Kind, expected: str
) -> None:
    # The result's toJSON runs inside the private serializer and never yields to the interrupt.
    source = "({ toJSON() { return new Array(2 ** 32 - 1).join() } })"
    with WorkerPool() as pool:
        started = time.monotonic()
        with pytest.raises(SandboxError) as caught:
            pool.evaluate(source, kind, Scope())
        assert (caught.value.reason, caught.value.retryable) == (expected, False)
        assert time.monotonic() - started < pool.deadline_s + 2
        assert pool.evaluate("1", "transform", Scope()) == 1


def test_a_worker_killed_while_evaluating_is_still_a_timeout() -> None:
    with WorkerPool() as pool:
        with pytest.raises(SandboxError) as caught:
            pool.evaluate("new Array(2 ** 32 - 1).join()", "transform", Scope())
        assert (caught.value.reason, caught.value.retryable) == ("timeout", True)
