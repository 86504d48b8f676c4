"""The secret context boundary: denied keys, the sticky latch, the fixed secret_context error."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from sandbox import ContextProjection, SandboxError, Scope, evaluate
from sandbox.authored import authored_script
from sandbox.errors import SECRET_CONTEXT_MESSAGE
from sandbox.evaluator import bindings_for

Failure = Callable[..., SandboxError]

SECRET_INPUT = "sk-live-input-0123456789"
SCOPE = Scope(
    inputs={"region": "eu", "api_key": SECRET_INPUT, "count": 2},
    ctx=ContextProjection({"env": "prod"}, ("db_password",), ("db_password", "env")),
    secret_inputs=frozenset({"api_key", "optional_secret"}),
)

DENIED_READS = [
    "inputs.api_key",
    "ctx.db_password",
    "inputs['api' + '_key']",
    "(() => { try { return inputs.api_key } catch (e) { return 'caught' } })()",
    "(() => { try { ctx.db_password } catch (e) {} return 'clean' })()",
    "JSON.stringify(inputs)",
    "Object.values(ctx)",
    "Object.entries(inputs).length",
    "({ ...inputs }).region",
    "Object.assign({}, ctx)",
    "Reflect.get(inputs, 'api_key')",
    "Object.getOwnPropertyDescriptor(inputs, 'api_key').get.call({})",
    "(() => { throw new Error(inputs.api_key) })()",
    "({ get late() { return ctx.db_password } })",  # read during serialization
    "({ toJSON() { try { inputs.api_key } catch (e) {} return { clean: true } } })",
    "({ get late() { try { return inputs.api_key } catch (e) { return 'caught' } } })",
    "(() => { const e = new Error('m'); Object.defineProperty(e, 'stack', "
    "{ get() { return inputs.api_key } }); return e })()",
    "({ toJSON() { throw new Error('x') }, get a() { return 1 } }, inputs.api_key)",
    "[inputs.region, inputs.api_key]",
]


@pytest.mark.parametrize("kind", ["condition", "transform"])
@pytest.mark.parametrize("source", DENIED_READS)
def test_any_observed_denied_read_is_secret_context(
    failure: Failure, kind: str, source: str
) -> None:
    error = failure(source, kind, SCOPE)
    assert (error.reason, error.retryable) == ("secret_context", False)
    assert error.message == SECRET_CONTEXT_MESSAGE
    assert error.detail is None
    assert error.__cause__ is None


def test_denial_wins_over_a_caught_serialization_error(failure: Failure) -> None:
    source = "(() => { const a = { get s() { try { inputs.api_key } catch (e) {} return 1 } }; a.self = a; return a })()"  # noqa: E501
    assert failure(source, scope=SCOPE).reason == "secret_context"


def test_key_only_enumeration_is_allowed() -> None:
    source = """[
      Object.keys(inputs), Object.keys(ctx), 'api_key' in inputs, 'db_password' in ctx,
      Object.hasOwn(inputs, 'api_key'), inputs.region, ctx.env, inputs.count
    ]"""
    assert evaluate(source, "transform", SCOPE) == [
        ["region", "api_key", "count"],
        ["db_password", "env"],
        True,
        True,
        True,
        "eu",
        "prod",
        2,
    ]


def test_omitted_optional_secret_stays_absent() -> None:
    source = """[
      'optional_secret' in inputs, inputs.optional_secret === undefined,
      Object.getOwnPropertyDescriptor(inputs, 'optional_secret') === undefined,
      Object.getOwnPropertyNames(inputs).includes('optional_secret')
    ]"""
    assert evaluate(source, "transform", SCOPE) == [False, True, True, False]


def test_denied_accessors_cannot_be_replaced() -> None:
    source = """(() => {
      const results = [];
      for (const attempt of [
        () => Object.defineProperty(inputs, 'api_key', { value: 'x' }),
        () => { delete inputs.api_key },
        () => { inputs.api_key = 'x' },
      ]) { try { attempt(); results.push('changed') } catch (e) { results.push(e.name) } }
      return results;
    })()"""
    assert evaluate(source, "transform", SCOPE) == ["TypeError", "TypeError", "TypeError"]


def test_exhausted_stack_before_the_accessor_runs_is_not_a_denial() -> None:
    # Finite detection (spec): a stack failure before the accessor body cannot set the latch;
    # the clean fallback carries no secret because none was ever supplied to the VM.
    source = """(function dive() {
      try { return dive() } catch (e) {
        try { return inputs.api_key } catch (e2) { return 'SWALLOWED' }
      }
    })()"""
    assert evaluate(source, "transform", SCOPE) == "SWALLOWED"


def test_secret_values_never_enter_the_vm_request() -> None:
    scope = Scope(
        inputs={"api_key": SECRET_INPUT},
        ctx=ContextProjection({"env": "prod"}, ("db_password",)),
        secret_inputs=frozenset({"api_key"}),
    )
    request = scope.vm_request("transform", authored_script("1", bindings_for("transform")))
    assert SECRET_INPUT not in request
    assert json.loads(request)["inputs"] == {"api_key": None}
    assert SECRET_INPUT not in json.dumps(scope.to_json())


def test_secret_input_value_is_dropped_when_the_scope_is_built() -> None:
    assert SCOPE.inputs["api_key"] is None
    assert SCOPE.denied_inputs == ("api_key",)
