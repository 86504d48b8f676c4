"""Issue 13 section 1 (sandbox half): the opt-in author detail of a failed evaluation.

`evaluate(..., with_detail=True)` / `WorkerPool.run(..., with_detail=True)` return an Outcome whose
`detail` is the author's own JavaScript error: class, message and the failing token's range in
expression coordinates (0-based line, 0-based UTF-16 column). `to_json()` never shows it;
`to_json(include_detail=True)` adds `error.detail`. A secret_context failure never has one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from sandbox import Outcome, SandboxError, Scope, WorkerPool, evaluate
from sandbox.transport import Kind

SECRET = "sk-detail-secret-1234"
SCOPE = Scope(inputs={"a": None, "key": SECRET}, secret_inputs=frozenset({"key"}))


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    with WorkerPool() as workers:
        yield workers


def shown(outcome: Outcome) -> dict[str, object] | None:
    error = outcome.to_json(include_detail=True)["error"]
    assert isinstance(error, dict)
    detail = error.get("detail")
    assert detail is None or isinstance(detail, dict)
    return detail


def span(line: int, start: int, end: int) -> dict[str, object]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


CASES: list[tuple[str, dict[str, object]]] = [
    ("inputs.a.risk", {"class": "TypeError", "message": "cannot read property 'risk' of null",
                       "range": span(0, 9, 13)}),
    # UTF-16 columns: 😀 counts two, é one.
    ("'é😀' + inputs.b.risk", {"class": "TypeError",
                               "message": "cannot read property 'risk' of undefined",
                               "range": span(0, 17, 21)}),
    ("1 +\n  [0].map(x => inputs.a['risk'])",
     {"class": "TypeError", "message": "cannot read property 'risk' of null",
      "range": span(1, 23, 31)}),
    ("'x'\u2028+ missing", {"class": "ReferenceError", "message": "missing is not defined",
                             "range": span(1, 2, 9)}),
    ("(() => { throw new RangeError('boom') })()",
     {"class": "RangeError", "message": "boom", "range": span(0, 19, 29)}),
    ("(() => { throw { code: 7 } })()", {"class": "Uncaught", "message": '{"code":7}'}),
    # Syntax errors carry the parser's position.
    ("inputs.a +\n  )", {"class": "SyntaxError",
                         "message": "unexpected token in expression: ')'",
                         "range": span(1, 2, 3)}),
    ("1) + (2", {"class": "SyntaxError", "message": "expected exactly one expression",
                 "range": span(0, 1, 2)}),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_the_detail_names_class_message_and_range(source: str, expected: object) -> None:
    outcome = evaluate(source, "transform", SCOPE, with_detail=True)
    assert isinstance(outcome, Outcome) and not outcome.ok
    assert shown(outcome) == expected
    # Never shown unless asked for.
    assert "detail" not in outcome.to_json()["error"]


@pytest.mark.parametrize(("source", "expected"), CASES[::2])
def test_the_worker_pool_gives_the_same_detail(
    pool: WorkerPool, source: str, expected: object
) -> None:
    assert shown(pool.run(source, "transform", SCOPE, with_detail=True)) == expected
    outcome = pool.evaluate(source, "transform", SCOPE, with_detail=True)
    assert shown(outcome) == expected
    assert pool.run(source, "transform", SCOPE).detail is None


@pytest.mark.parametrize(
    "source",
    [
        "inputs.key",
        "(() => { try { inputs.key } catch (e) { throw new TypeError('after ' + e.message) } })()",
        "JSON.stringify(inputs)",
    ],
)
@pytest.mark.parametrize("kind", ["condition", "transform"])
def test_a_secret_context_failure_never_has_a_detail(source: str, kind: Kind) -> None:
    outcome = evaluate(source, kind, SCOPE, with_detail=True)
    assert outcome.error is not None and outcome.error.reason == "secret_context"
    assert outcome.detail is None
    assert "detail" not in outcome.to_json(include_detail=True)["error"]


def test_without_with_detail_evaluate_still_raises() -> None:
    with pytest.raises(SandboxError):
        evaluate("inputs.a.risk", "transform", SCOPE)
    assert evaluate("1", "transform", SCOPE, with_detail=True) == Outcome(value=1)


def test_host_decided_failures_have_no_javascript_detail() -> None:
    outcome = evaluate("({})", "condition", SCOPE, with_detail=True)
    assert outcome.error is not None and outcome.error.reason == "result_type"
    assert outcome.detail is None


def test_the_detail_is_clipped_and_unforgeable_by_hooks() -> None:
    long = evaluate("(() => { throw new Error('x'.repeat(100000)) })()", "transform", SCOPE,
                    with_detail=True)  # fmt: skip
    assert long.detail is not None and len(long.detail.message) == 2000
    # Hooks planted before the failure cannot reshape the driver's record of it.
    hooked = (
        "(() => { Object.defineProperty(Array.prototype, '0', { configurable: true,"
        " set(v) { try { v.class = 'Forged'; v.line = 1 } catch (e) {}"
        " Object.defineProperty(this, '0', { value: v, writable: true, configurable: true }) } });"
        " Object.prototype.toJSON = () => ({ class: 'Forged' });"
        " return inputs.a.risk })()"
    )
    detail = shown(evaluate(hooked, "transform", SCOPE, with_detail=True))
    assert detail is not None and detail["class"] == "TypeError"
    assert detail["message"] == "cannot read property 'risk' of null"


def run_eval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server", "eval", *args],
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def test_eval_json_shows_the_detail_in_expression_coordinates() -> None:
    result = run_eval("--kind", "transform", "--expr", "null.risk", "--format", "json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["error"]["detail"] == {
        "class": "TypeError", "message": "cannot read property 'risk' of null",
        "range": span(0, 5, 9),
    }  # fmt: skip


def test_eval_text_shows_the_detail_like_a_compiler() -> None:
    result = run_eval("--kind", "transform", "--expr", "'é' + null.risk")
    assert result.returncode == 1
    assert result.stderr.splitlines()[:3] == [
        "<expr>:1:12: TypeError: cannot read property 'risk' of null",
        "'é' + null.risk",
        "           ^^^^",
    ]
    assert "sandbox_error (runtime)" in result.stderr
    syntax = run_eval("--kind", "transform", "--expr", "inputs.a +")
    assert syntax.stderr.startswith("<expr>:1:11: SyntaxError: unexpected token in expression")
