"""Scope construction: the sample-scope JSON shape, field-named errors, depth admission."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox import ContextProjection, SandboxError, Scope, ScopeError, evaluate
from sandbox.scope import MAX_SCOPE_DEPTH, SharedValue

Failure = Callable[..., SandboxError]


def nested(depth: int) -> object:
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


def test_from_json_reads_every_part() -> None:
    scope = Scope.from_json(
        {
            "inputs": {"text": "hi", "key": "raw-secret"},
            "ctx": {"tenant": "acme", "token": "raw-ctx-secret", "region": "eu"},
            "run": {"outputs": {"classify": {"label": "bug"}}},
            "branches": [{"n": 1}],
            "secret_inputs": ["key", "absent"],
            "secret_ctx": ["token", "extra"],
        }
    )
    assert scope.inputs == {"text": "hi", "key": None}
    assert scope.secret_inputs == frozenset({"key", "absent"})
    assert scope.ctx.values == {"tenant": "acme", "region": "eu"}
    assert scope.ctx.denied_keys == ("token", "extra")
    assert scope.ctx.ordered_keys == ("tenant", "token", "region", "extra")
    assert scope.run_outputs == {"classify": {"label": "bug"}}
    assert scope.branches == ({"n": 1},)
    assert "raw-secret" not in repr(scope) and "raw-ctx-secret" not in repr(scope)
    assert Scope.from_json(scope.to_json()) == scope


def test_from_json_parts_are_optional() -> None:
    assert Scope.from_json({}) == Scope()


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ([], "scope:"),
        ({"input": {}}, "scope.input:"),
        ({"inputs": []}, "scope.inputs:"),
        ({"ctx": {"a": 1}}, "scope.ctx.a:"),
        ({"ctx": {"not an identifier": "x"}}, "scope.ctx:"),
        ({"run": {"outputs": [], "x": 1}}, "scope.run:"),
        ({"run": {"outputs": []}}, "scope.run.outputs:"),
        ({"run": []}, "scope.run:"),
        ({"branches": {}}, "scope.branches:"),
        ({"secret_inputs": "key"}, "scope.secret_inputs:"),
        ({"secret_ctx": ["a", "a"]}, "scope.secret_ctx:"),
        ({"secret_ctx": ["bad-key"]}, "scope.secret_ctx:"),
        ({"inputs": {"x": float("nan")}}, "scope.inputs.x:"),
        (
            {"run": {"outputs": {"n": {"v": [1, {"deep": float("inf")}]}}}},
            "scope.run.outputs.n.v[1].deep:",
        ),
        ({"branches": [{"s": {1, 2}}]}, "scope.branches[0].s:"),
        ({"inputs": {"deep": nested(MAX_SCOPE_DEPTH + 2)}}, "scope.inputs.deep"),
    ],
)
def test_from_json_errors_name_the_field(document: object, field: str) -> None:
    with pytest.raises(ScopeError) as caught:
        Scope.from_json(document)
    assert str(caught.value).startswith(field)


def test_context_projection_requires_the_exact_key_order() -> None:
    with pytest.raises(ScopeError, match="key order"):
        ContextProjection({"a": "1"}, ("b",), ("a",))
    with pytest.raises(ScopeError, match="cannot also have a clean value"):
        ContextProjection({"a": "1"}, ("a",))
    assert ContextProjection({"a": "1"}, ("b",)).ordered_keys == ("a", "b")


def test_depth_at_the_limit_is_admitted_and_beyond_is_scope(failure: Failure) -> None:
    deepest = nested(MAX_SCOPE_DEPTH + 1)  # containers at depths 0..MAX_SCOPE_DEPTH
    assert evaluate("JSON.stringify(inputs.v).length", "transform", Scope(inputs={"v": deepest}))
    Scope.from_json({"inputs": {"v": deepest}})
    for too_deep in [nested(MAX_SCOPE_DEPTH + 2), nested(5000)]:
        error = failure("1", scope=Scope(inputs={"v": too_deep}))
        assert (error.reason, error.retryable) == ("scope", False)


def test_non_json_scope_is_scope_without_echoing_the_value(failure: Failure) -> None:
    for scope in [
        Scope(inputs={"v": float("nan")}),
        Scope(run_outputs={"n": {"when": object()}}),
        Scope(branches=[{1, 2}]),
    ]:
        error = failure("1", "merge", scope)
        assert error.reason == "scope"
        assert "nan" not in (error.detail or "").lower()


def test_cyclic_scope_is_scope_without_echoing_a_value(failure: Failure) -> None:
    # The host encodes the scope without a marker table of visited containers; a cycle must
    # still end as a `scope` failure, not a crash or a hang, and quote nothing from inside it.
    looping: dict[str, object] = {"marker": "cycle-secret-value"}
    looping["self"] = looping
    listed: list[object] = ["cycle-secret-value"]
    listed.append([listed])
    for scope in [Scope(inputs={"v": looping}), Scope(run_outputs={"n": listed}),
                  Scope(branches=[looping])]:
        error = failure("1", "merge", scope)
        assert (error.reason, error.retryable) == ("scope", False)
        assert "cycle-secret-value" not in str(error) + (error.detail or "")


def test_unknown_kind_is_refused(failure: Failure) -> None:
    assert failure("1", "jmespath").reason == "scope"


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(st.text(max_size=8), children, max_size=3)
        ),
        max_leaves=12,
    )
)
def test_from_json_accepts_or_names_a_field_never_crashes(document: object) -> None:
    for candidate in [document, {"inputs": document}, {"ctx": document}, {"run": document}]:
        try:
            Scope.from_json(candidate)
        except ScopeError as error:
            assert str(error).startswith("scope")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4),
    st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4),
    st.lists(JSON_VALUES, max_size=4),
)
def test_shared_values_make_the_request_the_plain_values_make(
    inputs: dict[str, object], outputs: dict[str, object], branches: list[object]
) -> None:
    plain = Scope(inputs=inputs, run_outputs=outputs, branches=branches)
    shared = Scope(
        inputs={key: SharedValue(value, f"scope.inputs.{key}") for key, value in inputs.items()},
        run_outputs={key: SharedValue(value, "o") for key, value in outputs.items()},
        branches=[SharedValue(value, "b") for value in branches],
    )
    for kind in ("transform", "merge"):
        assert shared.vm_request(kind, "x") == plain.vm_request(kind, "x")
    assert shared.to_json() == plain.to_json()
    # the same piece serves many requests, under other keys too
    again = Scope(run_outputs={"z": shared.run_outputs.get(next(iter(outputs), ""), 1)})
    assert again.vm_request("transform", "x") == Scope(
        run_outputs={"z": outputs.get(next(iter(outputs), ""), 1)}
    ).vm_request("transform", "x")


def test_non_string_keys_are_coerced_as_json_dumps_does() -> None:
    keys: dict[Any, object] = {1: "a", 2.5: "b", False: "c", None: "d"}
    shared = Scope(inputs={key: SharedValue(value, "i") for key, value in keys.items()})
    assert shared.vm_request("transform", "x") == Scope(inputs=keys).vm_request("transform", "x")


def test_a_shared_value_is_admitted_when_made_with_the_field_named() -> None:
    with pytest.raises(ScopeError, match=r"^scope\.run\.outputs\.a\.b: NaN"):
        SharedValue({"b": float("nan")}, "scope.run.outputs.a")
    with pytest.raises(ScopeError, match="nested deeper than"):
        SharedValue(nested(MAX_SCOPE_DEPTH + 2), "scope.inputs.x")
    SharedValue(nested(MAX_SCOPE_DEPTH + 1), "scope.inputs.x")  # the plain limit, no tighter
    # only directly under a binding key: nested inside another value it is not JSON
    with pytest.raises(ScopeError, match="SharedValue is not a JSON value"):
        Scope.from_json({"inputs": {"x": {"y": SharedValue(1, "i")}}})


def test_a_shared_value_that_cannot_be_serialised_fails_the_evaluation_as_scope() -> None:
    huge = 10 ** 5000  # admitted (an int), but json.dumps refuses more than 4300 digits
    shared = Scope(run_outputs={"a": SharedValue(huge, "scope.run.outputs.a")})
    with pytest.raises(SandboxError) as caught:
        evaluate("1", "transform", shared)
    assert caught.value.reason == "scope"
    with pytest.raises(SandboxError) as plain:
        evaluate("1", "transform", Scope(run_outputs={"a": huge}))
    assert str(plain.value) == str(caught.value)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES | st.integers(min_value=2**64) | st.just("lone \ud800 surrogate"))
def test_the_fast_encoder_gives_the_vm_the_value_json_dumps_gives_it(value: object) -> None:
    # orjson writes the request when its text is exact; json.dumps otherwise (sandbox/scope.py)
    request = Scope(inputs={"v": value}).vm_request("transform", "x")
    assert request.isascii()  # the pool's line protocol and the binding rely on it
    assert json.loads(request)["inputs"] == {"v": json.loads(json.dumps(value))}


@pytest.mark.parametrize("value", [float("nan"), float("inf"), [1, {"x": -float("inf")}]])
def test_nan_is_refused_though_the_fast_encoder_writes_it_as_null(value: object) -> None:
    with pytest.raises(SandboxError) as caught:
        evaluate("1", "transform", Scope(inputs={"v": value}))
    assert caught.value.reason == "scope"
