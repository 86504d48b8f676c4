"""Isolation and determinism: fresh runtime per evaluation, private transport, JSON-only scope."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox import ContextProjection, SandboxError, Scope, evaluate

Failure = Callable[..., SandboxError]


def test_no_state_bleeds_between_evaluations() -> None:
    polluting = """(() => {
      globalThis.leak = 1; Object.prototype.polluted = true; Array.prototype.map = null;
      JSON.stringify = null; String.prototype.toUpperCase = () => 'owned';
      return 0;
    })()"""
    assert evaluate(polluting, "transform", Scope()) == 0
    observe = (
        "[typeof leak, ({}).polluted, typeof [].map, typeof JSON.stringify, 'a'.toUpperCase()]"
    )
    assert evaluate(observe, "transform", Scope()) == [
        "undefined",
        None,
        "function",
        "function",
        "A",
    ]


def test_scope_mutation_attempts_have_no_cross_evaluation_effect() -> None:
    scope = Scope(inputs={"list": [1, 2]})
    source = "(() => { try { inputs.list.push(3) } catch (e) {} return inputs.list })()"
    assert evaluate(source, "transform", scope) == [1, 2]
    assert evaluate("inputs.list", "transform", scope) == [1, 2]
    assert scope.inputs["list"] == [1, 2]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('\'{"v":1,"arm":"denied"}\'', '{"v":1,"arm":"denied"}'),
        ("({ v: 1, arm: 'denied' })", {"v": 1, "arm": "denied"}),
        ("({ toJSON() { return { v: 1, arm: 'failure' } } })", {"v": 1, "arm": "failure"}),
        ('\'", "arm": "denied\'', '", "arm": "denied'),
    ],
)
def test_authored_values_cannot_forge_the_transport(source: str, expected: object) -> None:
    assert evaluate(source, "transform", Scope()) == expected


def test_authored_thrown_record_is_an_ordinary_runtime_error(failure: Failure) -> None:
    assert failure("(() => { throw { v: 1, arm: 'denied' } })()").reason == "runtime"


def test_poisoned_prototypes_cannot_steer_the_private_serializer() -> None:
    source = """(() => {
      Object.defineProperty(Object.prototype, 'arm', { get() { return 'denied' } });
      Object.defineProperty(Object.prototype, 'payload', { get() { return '"forged"' } });
      String.prototype.slice = () => 'forged'; Array.prototype.push = null;
      Object.keys = null; Reflect.apply = null; JSON.parse = null;
      return new Error('kept');
    })()"""
    result = evaluate(source, "transform", Scope())
    assert (result["name"], result["message"]) == ("Error", "kept")


def test_poisoned_array_indices_cannot_steer_error_fields() -> None:
    source = """(Object.defineProperty(Array.prototype, '0', {
      set(v) { globalThis.stolen = v }, get() { return 'forged' },
    }), new Error('m'))"""
    result = evaluate(source, "transform", Scope())
    assert (result["name"], result["message"]) == ("Error", "m")


def test_poisoned_object_tojson_applies_to_the_result_only(failure: Failure) -> None:
    # Authored semantics: JSON.stringify honours an inherited toJSON, so the object serializes to
    # a scalar and is refused; the private envelope (null prototype) is untouched by it.
    source = "(Object.prototype.toJSON = () => 'scalar', { a: 1 })"
    assert failure(source).reason == "non_serializable"
    assert evaluate("(Object.prototype.toJSON = () => 'x', 'text')", "transform", Scope()) == "text"


def test_same_scope_always_yields_the_same_value() -> None:
    scope = Scope(inputs={"xs": [3, 1, 2]}, run_outputs={"a": {"n": 1}, "b": {"n": 2}})
    source = "[...inputs.xs].sort(), Object.keys(run.outputs).map(k => run.outputs[k].n)"
    results = {repr(evaluate(source, "merge", scope)) for _ in range(20)}
    assert len(results) == 1


def test_order_independent_merge_is_deterministic_over_shuffled_outputs() -> None:
    outputs = {f"node_{index}": {"score": index} for index in range(12)}
    source = """Object.keys(run.outputs).sort()
      .map(id => id + '=' + run.outputs[id].score).join(',')"""
    seen = set()
    rng = random.Random(7)
    for _ in range(12):
        items = list(outputs.items())
        rng.shuffle(items)
        seen.add(evaluate(source, "merge", Scope(run_outputs=dict(items))))
    assert len(seen) == 1


def test_integer_like_output_ids_enumerate_ascending_whatever_the_host_order() -> None:
    scope = Scope(run_outputs={"10": 1, "b": 2, "2": 3, "a": 4})
    assert evaluate("Object.keys(run.outputs)", "transform", scope) == ["2", "10", "b", "a"]


JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(JSON_VALUES)
def test_any_json_scope_value_round_trips(value: object) -> None:
    result = evaluate("inputs.v", "transform", Scope(inputs={"v": value}))
    assert result == value


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("()[]{}.,;+-*/!?:=<>'\"`\\ ainputsrx01"), max_size=24))
def test_arbitrary_source_raises_only_sandbox_error(source: str) -> None:
    try:
        evaluate(source, "transform", Scope(inputs={"a": 1}))
    except SandboxError as error:
        assert error.reason in {"syntax", "runtime", "non_serializable", "stack", "memory"}


def test_scope_strings_with_nul_and_lone_surrogates_round_trip() -> None:
    text = "a\x00b\ud800c\U0001f600"
    scope = Scope(inputs={"t": text}, ctx=ContextProjection({"c": text}))
    assert evaluate("[inputs.t, ctx.c, inputs.t.length]", "transform", scope) == [
        text,
        text,
        7,
    ]  # UTF-16 length
