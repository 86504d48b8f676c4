"""The error taxonomy: classification evidence, caps, retryability and message scrubbing."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from sandbox import SandboxError, Scope, evaluate
from sandbox.errors import MESSAGES

Failure = Callable[..., SandboxError]


@pytest.mark.parametrize(
    "source",
    ["1 +", "inputs.a;", "1)}); x = 1; (function(){(1", "", "await x", "# yaml comment"],
)
def test_invalid_javascript_is_syntax(failure: Failure, source: str) -> None:
    error = failure(source)
    assert (error.reason, error.retryable) == ("syntax", False)


@pytest.mark.parametrize(
    ("source", "detail"),
    [
        ("missing", "ReferenceError: missing is not defined"),
        ("null.x", "TypeError: cannot read property 'x' of null"),
        ("(() => { throw new Error('boom') })()", "Error: boom"),
        ("(() => { throw 'text' })()", '"text"'),
        ("(() => { throw 5n })()", "5"),
        ("eval('(')", "SyntaxError: unexpected token in expression: ''"),
        ("(() => { throw { name: 'InternalError', message: 'out of memory' } })()", None),
    ],
)
def test_thrown_values_are_fatal_runtime_errors(
    failure: Failure, source: str, detail: str | None
) -> None:
    error = failure(source)
    assert (error.reason, error.retryable) == ("runtime", False)
    if detail is not None:
        assert error.detail == detail


def test_authored_interrupted_error_stays_a_fatal_runtime_error(failure: Failure) -> None:
    for source in [
        "(() => { throw new InternalError('interrupted') })()",
        "(() => { throw new Error('InternalError: interrupted') })()",
    ]:
        error = failure(source)
        assert (error.reason, error.retryable) == ("runtime", False)


@pytest.mark.parametrize(
    "source",
    [
        "'x'.repeat(1 << 23) + 'y'.repeat(1 << 23)",  # InternalError: out of memory
        "(() => { const a = []; for (;;) a.push({ x: [1, 2, 3] }) })()",  # the engine's null throw
        "(() => { let s = 'ab'; for (;;) s = s + s })()",  # string too long
        "(() => { const o = {}; for (let i = 0; ; i++) o['k' + i] = i })()",  # a value of no type
        "'x'.repeat(5 << 20)",  # the result does not fit next to its serialization
        "[" + "1," * 3_000_000 + "1]",  # the parser itself runs out of heap
    ],
)
def test_memory_cap_trips_fatal_memory(failure: Failure, source: str) -> None:
    error = failure(source)
    assert (error.reason, error.retryable) == ("memory", False)


@pytest.mark.parametrize(
    "source",
    [
        "(function f() { return f() })()",
        "(function f(n) { return [f(n + 1)] })(0)",
        "JSON.parse('['.repeat(100000) + ']'.repeat(100000))",
        "(" * 5000 + "1" + ")" * 5000,  # the parser itself overflows: a cap, not a syntax error
    ],
)
def test_stack_cap_trips_fatal_stack(failure: Failure, source: str) -> None:
    error = failure(source)
    assert (error.reason, error.retryable) == ("stack", False)


def test_caught_resource_failure_is_the_authored_fallback() -> None:
    source = (
        "(() => { try { return (function f() { return f() })() } catch (e) { return 'ok' } })()"
    )
    assert evaluate(source, "transform", Scope()) == "ok"


def test_wall_clock_cap_is_the_one_retryable_failure(failure: Failure) -> None:
    error = failure("(() => { try { for (;;) {} } catch (e) { return 'caught' } })()")
    assert (error.reason, error.retryable) == ("timeout", True)
    assert error.message == MESSAGES["timeout"]


def test_concurrent_in_process_timeouts_stay_retryable() -> None:
    # QuickJS's limit counts the whole process's CPU time, which parallel evaluations advance
    # faster than the wall clock; an early interrupt used to surface as a fatal `runtime`.
    def reason(_: int) -> tuple[str, bool]:
        try:
            evaluate("(() => { for (;;) {} })()", "transform", Scope())
        except SandboxError as error:
            return error.reason, error.retryable
        return "value", False

    with ThreadPoolExecutor(max_workers=3) as threads:
        assert list(threads.map(reason, range(3))) == [("timeout", True)] * 3


def test_catastrophic_regex_backtracking_is_interrupted(failure: Failure) -> None:
    error = failure("/(a+)+$/.test('a'.repeat(32) + 'b')", "condition")
    assert (error.reason, error.retryable) == ("timeout", True)


def test_escaping_interrupt_never_runs_authored_conversion_code(failure: Failure) -> None:
    source = """(() => {
      try { InternalError.prototype.toString = () => { for (;;) {} } } catch (e) {}
      try { Object.prototype.toString = () => { for (;;) {} } } catch (e) {}
      for (;;) {}
    })()"""
    assert failure(source).reason == "timeout"


def test_serialization_interrupt_keeps_the_baseline_disposition(failure: Failure) -> None:
    source = "({ toJSON() { for (;;) {} } })"
    error = failure(source, "transform")
    assert (error.reason, error.retryable) == ("non_serializable", False)


SECRET = "hunter2-secret-value"
SCOPE = Scope(
    inputs={"customer": "Alice Example", "token": SECRET},
    run_outputs={"classify": {"label": "very-private-label"}},
    secret_inputs=frozenset({"token"}),
)
SCRUB_CASES = [
    "inputs.customer.nope.deeper",
    "(() => { throw new Error(inputs.customer + ' ' + run.outputs.classify.label) })()",
    "uniqueIdentifierName42",
    "run.outputs.classify.label +",
    "(() => { throw run.outputs.classify })()",
    "inputs.token",
    "(() => { try { inputs.token } catch (e) {} ; return inputs.customer })()",
    "({ customer: inputs.customer, get t() { return inputs.token } })",
    "(function f() { return f() })()",
    "new Boolean(run.outputs.classify.label)",
]


@pytest.mark.parametrize("source", SCRUB_CASES)
def test_messages_never_echo_source_scope_values_or_secrets(failure: Failure, source: str) -> None:
    error = failure(source, scope=SCOPE)
    public = f"{error} {error.message} {error.to_json()}"
    assert error.message == MESSAGES[error.reason]
    for private in [source, "Alice", "very-private-label", "uniqueIdentifierName42", SECRET]:
        assert private not in public
    assert SECRET not in (error.detail or "")
