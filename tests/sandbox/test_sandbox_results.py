"""The result contract, row by row, for condition and transform/merge."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from sandbox import SandboxError, Scope, WorkerPool, evaluate
from sandbox.transport import MAX_RESULT_DEPTH

Failure = Callable[..., SandboxError]

BOXED = ["new String('x')", "new Number(1)", "new Boolean(true)", "Object(1n)"]
TOJSON_SCALAR = ["({ toJSON() { return 1 } })", "({ toJSON() { return 'a' } })"]
NEVER_SERIALIZABLE = ["undefined", "() => 1", "Symbol('s')", "10n", "class {}"]
OBJECTS = ["({ a: 1 })", "[1]", "null", "new Map([[1, 2]])", "new Set([1])", "new Error('e')"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [("true", True), ("'high'", "high"), ("42", 42), ("1.5", 1.5), ("'é😀'", "é😀")],
)
def test_condition_keeps_exact_primitive(source: str, expected: object) -> None:
    result = evaluate(source, "condition", Scope())
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize("kind", ["condition", "transform", "merge"])
@pytest.mark.parametrize(
    ("source", "check"),
    [
        ("NaN", math.isnan),
        ("Infinity", lambda v: v == math.inf),
        ("-Infinity", lambda v: v == -math.inf),
        ("-0", lambda v: v == 0 and math.copysign(1, v) < 0),
        ("0", lambda v: v == 0 and math.copysign(1, v) > 0),
    ],
)
def test_top_level_special_numbers_keep_value_and_sign(
    kind: str, source: str, check: Callable[[float], bool]
) -> None:
    assert check(evaluate(source, kind, Scope()))  # type: ignore[arg-type]


@pytest.mark.parametrize("source", OBJECTS + BOXED + TOJSON_SCALAR + NEVER_SERIALIZABLE)
def test_condition_outside_boolean_string_number_is_result_type(
    failure: Failure, source: str
) -> None:
    assert failure(source, "condition").reason == "result_type"


@pytest.mark.parametrize("kind", ["transform", "merge"])
@pytest.mark.parametrize("source", BOXED + TOJSON_SCALAR + NEVER_SERIALIZABLE)
def test_transform_rejects_wrappers_scalars_from_tojson_and_non_json(
    failure: Failure, kind: str, source: str
) -> None:
    assert failure(source, kind).reason == "non_serializable"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "({ a: [1, 'x', null, true], b: { c: {} } })",
            {"a": [1, "x", None, True], "b": {"c": {}}},
        ),
        ("null", None),
        ("({ toJSON() { return null } })", None),  # the null-result exception
        ("({ toJSON() { return { wrapped: 1 } } })", {"wrapped": 1}),
        ("new Map([[1, 2]])", {}),
        ("[new Set([1]), new Map()]", [{}, {}]),
        ("[NaN, Infinity, -Infinity, -0]", [None, None, None, 0]),
        ("({ u: undefined, f() {}, s: Symbol() })", {}),
        ("[undefined, () => 1, Symbol()]", [None, None, None]),
        ("[new String('x'), new Number(2), new Boolean(false)]", ["x", 2, False]),
        ("{ ...{ a: 1 } }", {"a": 1}),
        ("'\\ud800\\u0000'", "\ud800\x00"),
        ("({ 2: 'b', 1: 'a', z: 0 })", {"1": "a", "2": "b", "z": 0}),
    ],
)
def test_transform_follows_json_stringify_inside(source: str, expected: object) -> None:
    assert evaluate(source, "transform", Scope()) == expected


def test_integer_like_keys_enumerate_ascending() -> None:
    assert list(evaluate("({ 2: 'b', z: 0, 1: 'a' })", "transform", Scope())) == ["1", "2", "z"]


@pytest.mark.parametrize(
    "source",
    [
        "(() => { const a = {}; a.self = a; return a })()",
        "[1n]",
        "({ get boom() { throw new Error('x') } })",
        "({ toJSON() { throw new Error('x') } })",
        "(() => { let a = []; for (let i = 0; i < 5000; i++) a = [a]; return a })()",
    ],
)
def test_failed_serialization_keeps_baseline_disposition(failure: Failure, source: str) -> None:
    assert failure(source, "transform").reason == "non_serializable"
    assert failure(source, "condition").reason == "result_type"


def test_stateful_tojson_runs_exactly_once() -> None:
    source = "(() => { let calls = 0; return { toJSON() { calls += 1; return { calls } } } })()"
    assert evaluate(source, "transform", Scope()) == {"calls": 1}


def test_top_level_error_gains_diagnostic_fields_after_its_own_data() -> None:
    result = evaluate(
        "(() => { const e = new TypeError('bad'); e.code = 7; return e })()", "transform", Scope()
    )
    assert list(result)[:3] == ["code", "name", "message"]
    assert result["code"] == 7
    assert result["name"] == "TypeError"
    assert result["message"] == "bad"
    assert isinstance(result["stack"], str)


def test_error_fields_in_enumerable_data_keep_their_place() -> None:
    source = "Object.assign(new Error('m'), { name: 'Custom' })"
    result = evaluate(source, "transform", Scope())
    assert list(result)[:2] == ["name", "message"]
    assert result["name"] == "Custom"


def test_error_supplemental_getters_run_after_the_traversal() -> None:
    source = """(() => {
      const order = [];
      const e = new Error('m');
      Object.defineProperty(e, 'name', { get() { order.push('name'); return 'N' } });
      e.toJSON = function () { order.push('toJSON'); return { order } };
      return e;
    })()"""
    result = evaluate(source, "transform", Scope())
    assert result["name"] == "N"
    # The traversal's own JSON was taken before the supplemental getter ran.
    assert result["order"] == ["toJSON"]


def test_nested_errors_keep_ordinary_json_semantics() -> None:
    assert evaluate("[new Error('x'), { e: new RangeError('y') }]", "transform", Scope()) == [
        {},
        {"e": {}},
    ]


def nested_arrays(levels: int) -> str:
    return f"Array.from({{ length: {levels - 1} }}).reduce((inner) => [inner], [])"


def test_result_nesting_up_to_the_bound_is_a_value() -> None:
    value = evaluate(nested_arrays(MAX_RESULT_DEPTH), "transform", Scope())
    for _ in range(MAX_RESULT_DEPTH - 1):
        value = value[0]
    assert value == []


@pytest.mark.parametrize("levels", [MAX_RESULT_DEPTH + 1, 990])
def test_result_nested_deeper_than_the_host_can_carry_is_non_serializable(
    failure: Failure, levels: int
) -> None:
    # ~990 levels serialize in the VM but used to raise RecursionError in the host's decoder.
    assert failure(nested_arrays(levels), "transform").reason == "non_serializable"


def test_deep_result_through_the_worker_is_non_serializable_not_a_dead_worker() -> None:
    with WorkerPool() as pool:
        outcome = pool.run(nested_arrays(990), "merge", Scope())
        assert outcome.error is not None
        assert outcome.error.reason == "non_serializable"
        assert pool.evaluate("1", "transform", Scope()) == 1
