"""Issue 21 item 3: a real native step that never polls the interrupt, past the deadline.

A caught denied read followed by one long `Array(n).join("")` used to come back as a retryable
`timeout`, in-process and through the pool (when the step ended between the wall deadline and the
pool's kill); so did a condition returning `{}` and a transform returning `undefined`. The spec's
precedence (error taxonomy: the denied arm is selected "before ordinary error classification";
"merely outlasting the deadline does not make a deterministic failure retryable") keeps their
verdicts. test_sandbox_deadline.py pins the same rules with a clock that jumps; these run the
real step.

The step is sized by this thread's CPU time, not by the wall clock: a single-threaded step takes
at least its CPU time in wall time, so one that costs ~1.6 CPU seconds always ends past the 1 s
deadline, however loaded the machine, and stays inside the worker's 3 CPU seconds. The pool gets
a grace long enough that its kill never comes first: the step always lands between the deadline
and the kill. Only verdicts are asserted, never a duration.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from sandbox import ContextProjection, SandboxError, Scope, WorkerPool, evaluate
from sandbox.transport import Kind

STEP_CPU_SECONDS = 1.6
CALIBRATION_LENGTH = 1 << 20
SCOPE = Scope(
    inputs={"key": "s3cr3t"}, ctx=ContextProjection({}, ("password",), ("password",)),
    secret_inputs=frozenset({"key"}),
)


def _join(length: int) -> str:
    return f"Array({length}).join('')"


def _cpu_seconds(length: int) -> float:
    started = time.thread_time()
    evaluate(f"{_join(length)}.length", "transform", Scope())
    return time.thread_time() - started


@pytest.fixture(scope="module")
def long_step() -> str:
    """A native step of about STEP_CPU_SECONDS of CPU time on this machine: the cost of one
    element is the difference of two lengths (the evaluation's fixed cost cancels out)."""
    _cpu_seconds(CALIBRATION_LENGTH)  # warm
    extra = _cpu_seconds(4 * CALIBRATION_LENGTH) - _cpu_seconds(CALIBRATION_LENGTH)
    per_element = max(extra, 1e-6) / (3 * CALIBRATION_LENGTH)
    return _join(round(STEP_CPU_SECONDS / per_element))


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    with WorkerPool(grace_ms=120_000) as workers:
        yield workers


def reason(
    pool: WorkerPool | None, source: str, kind: Kind, scope: Scope
) -> tuple[str, bool]:
    evaluate_in = evaluate if pool is None else pool.evaluate
    with pytest.raises(SandboxError) as caught:
        evaluate_in(source, kind, scope)
    return caught.value.reason, caught.value.retryable


def test_the_step_overruns_the_deadline(pool: WorkerPool, long_step: str) -> None:
    """The precondition of the tests below, stated as a verdict: the same step returning a plain
    value is a timeout (a value is never returned past the cap)."""
    assert reason(pool, f"{long_step}.length", "transform", Scope()) == ("timeout", True)


def test_a_caught_denied_read_before_the_step_is_secret_context_in_process(
    long_step: str,
) -> None:
    source = f"(() => {{ try {{ inputs.key }} catch (e) {{}} return {long_step}.length }})()"
    assert reason(None, source, "transform", SCOPE) == ("secret_context", False)


@pytest.mark.parametrize(("kind", "template", "expected"), [
    ("transform", "(() => {{ try {{ inputs.key }} catch (e) {{}} return {step}.length }})()",
     "secret_context"),
    ("condition", "(() => {{ try {{ ctx.password }} catch (e) {{}} return {step} === '' }})()",
     "secret_context"),
    ("condition", "(() => {{ {step}; return {{}} }})()", "result_type"),
    ("transform", "(() => {{ {step}; return undefined }})()", "non_serializable"),
])
def test_a_verdict_decided_before_the_step_ended_stands_through_the_pool(
    pool: WorkerPool, long_step: str, kind: Kind, template: str, expected: str
) -> None:
    source = template.format(step=long_step)
    assert reason(pool, source, kind, SCOPE) == (expected, False)
