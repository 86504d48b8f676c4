"""The public surface others import, and the CLI JSON shape of an outcome."""

from __future__ import annotations

import math

import pytest

import sandbox
from sandbox import Outcome, SandboxError, Scope, WorkerPool, evaluate


def test_caps_are_the_spec_constants() -> None:
    assert sandbox.TIME_LIMIT_MS == 1000
    assert sandbox.MEMORY_LIMIT_BYTES == 16 * 1024 * 1024
    assert sandbox.STACK_LIMIT_BYTES == 256 * 1024


def test_evaluate_returns_the_value() -> None:
    scope = Scope(inputs={"items": [1, 2, 3]})
    assert evaluate("inputs.items.map(x => x * 2)", "transform", scope) == [2, 4, 6]


def test_evaluate_raises_sandbox_error_with_public_shape() -> None:
    with pytest.raises(SandboxError) as caught:
        evaluate("missing.value", "transform", Scope())
    assert caught.value.to_json() == {
        "code": "sandbox_error",
        "reason": "runtime",
        "retryable": False,
        "message": "the expression threw an error",
    }
    assert caught.value.detail == "ReferenceError: missing is not defined"
    assert len(caught.value.correlation_id) == 32


@pytest.mark.parametrize(
    ("value", "shape", "text"),
    [
        (math.nan, {"ok": True, "value": None, "number": "NaN"}, "NaN"),
        (math.inf, {"ok": True, "value": None, "number": "Infinity"}, "Infinity"),
        (-math.inf, {"ok": True, "value": None, "number": "-Infinity"}, "-Infinity"),
        (-0.0, {"ok": True, "value": None, "number": "-0"}, "-0"),
        (0.0, {"ok": True, "value": 0.0}, "0.0"),
        (None, {"ok": True, "value": None}, "null"),
        ({"a": [1]}, {"ok": True, "value": {"a": [1]}}, '{\n  "a": [\n    1\n  ]\n}'),
    ],
)
def test_outcome_json_encodes_special_numbers(value: object, shape: object, text: str) -> None:
    assert Outcome(value=value).to_json() == shape
    assert Outcome(value=value).to_text() == text


def test_outcome_of_an_error_has_only_public_fields() -> None:
    outcome = Outcome(error=SandboxError("timeout", "private detail"))
    assert outcome.to_json() == {
        "ok": False,
        "error": {
            "code": "sandbox_error",
            "reason": "timeout",
            "retryable": True,
            "message": "the expression exceeded the sandbox time limit",
        },
    }
    assert "private" not in outcome.to_text()


def test_worker_pool_matches_in_process_evaluation() -> None:
    scope = Scope(inputs={"score": 0.75}, run_outputs={"classify": {"label": "bug"}})
    sources = ["inputs.score > 0.5", "run.outputs.classify.label", "-0", "0 / 0", "[1, 2]"]
    with WorkerPool() as pool:
        for source in sources:
            in_process = Outcome(value=evaluate(source, "transform", scope)).to_json()
            assert pool.run(source, "transform", scope).to_json() == in_process
