"""The language surface: deny-by-default globals, contained eval/Function, frozen intrinsics."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sandbox import SandboxError, Scope, evaluate

Failure = Callable[..., SandboxError]

ALLOWED_GLOBALS = {
    "Object", "Function", "Array", "String", "Number", "Boolean", "Math", "JSON", "Map", "Set",
    "WeakMap", "WeakSet", "RegExp", "Reflect", "Symbol", "BigInt", "parseInt", "parseFloat",
    "isNaN", "isFinite", "eval", "globalThis", "Infinity", "NaN", "undefined", "Error",
    "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError",
    "InternalError", "AggregateError", "decodeURI", "decodeURIComponent", "encodeURI",
    "encodeURIComponent", "escape", "unescape",
}  # fmt: skip
ERROR_CONSTRUCTORS = [
    "Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError",
    "URIError", "InternalError", "AggregateError",
]  # fmt: skip


def value(source: str, scope: Scope | None = None) -> object:
    return evaluate(source, "transform", scope or Scope())


def test_globals_are_exactly_the_allow_list() -> None:
    assert set(value("Object.getOwnPropertyNames(globalThis)")) == ALLOWED_GLOBALS  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "name",
    [
        "Date", "Proxy", "Promise", "WeakRef", "FinalizationRegistry", "performance",
        "queueMicrotask", "SharedArrayBuffer", "Atomics", "btoa", "atob", "DOMException",
        "Iterator", "DisposableStack", "AsyncDisposableStack", "SuppressedError", "ArrayBuffer",
        "DataView", "Uint8Array", "Float64Array", "BigInt64Array", "setTimeout", "setInterval",
        "crypto", "Intl", "require", "process", "fetch", "console", "print", "std", "os",
    ],
)  # fmt: skip
def test_forbidden_capability_is_absent(name: str) -> None:
    assert value(f"typeof {name}") == "undefined"
    assert value(f"Function('return typeof {name}')()") == "undefined"


def test_math_random_is_gone_and_math_frozen(failure: Failure) -> None:
    assert value("[typeof Math.random, Object.isFrozen(Math), Math.max(1, 2)]") == [
        "undefined",
        True,
        2,
    ]
    assert failure("Math.random()").reason == "runtime"
    assert failure("Math.random = () => 4").reason == "runtime"
    assert failure("Object.defineProperty(Math, 'random', { value: () => 4 })").reason == "runtime"


def test_eval_and_function_are_present_but_contained() -> None:
    assert value("[typeof eval, typeof Function, eval('1 + 1'), Function('return 2')()]") == [
        "function",
        "function",
        2,
        2,
    ]
    # Indirect eval and Function bodies run at global scope: the scope bindings are lexical.
    scope = Scope(inputs={"a": 1})
    assert value("(0, eval)('typeof inputs')", scope) == "undefined"
    assert value("Function('return typeof inputs')()", scope) == "undefined"
    assert value("'inputs' in globalThis", scope) is False


@pytest.mark.parametrize(
    "source",
    [
        "(function () {}).constructor('return typeof Date')()",
        "(() => 0).constructor.constructor('return typeof Date')()",
        "Reflect.getPrototypeOf(function* () {}).constructor('return typeof Date')().next().value",
        "[].map.constructor('return typeof Date')()",
    ],
)
def test_reacquired_function_constructor_reaches_no_capability(source: str) -> None:
    assert value(source) == "undefined"


def test_promise_is_reachable_through_async_but_its_jobs_never_run() -> None:
    source = """(() => {
      let ran = false;
      const pending = (async () => 0)();
      pending.then(() => { ran = true });
      return [pending.constructor.name, ran, typeof Promise];
    })()"""
    assert value(source) == ["Promise", False, "undefined"]


def test_dynamic_import_never_loads() -> None:
    source = """(() => {
      let settled = false;
      import('/etc/passwd').then(() => { settled = true }, () => { settled = true });
      return settled;
    })()"""
    assert value(source) is False


@pytest.mark.parametrize("name", ERROR_CONSTRUCTORS)
def test_error_constructors_and_prototypes_are_frozen(name: str) -> None:
    assert value(f"[Object.isFrozen({name}), Object.isFrozen({name}.prototype)]") == [True, True]


def test_prepare_stack_trace_cannot_hand_out_live_functions(failure: Failure) -> None:
    assert failure("Error.prepareStackTrace = (error, frames) => frames").reason == "runtime"
    # A getter runs inside the private serializer: its frames must stay out of reach.
    source = """({ get frames() {
      try {
        Error.prepareStackTrace = (error, callSites) => callSites.map(s => s.getFunction());
        return 'leaked';
      } catch (error) { return error.constructor.name }
    } })"""
    assert value(source) == {"frames": "TypeError"}
    assert value("typeof Error.prepareStackTrace") == "undefined"


def test_wrapper_breakout_is_a_syntax_error_and_runs_nothing(failure: Failure) -> None:
    error = failure("1)}); globalThis.escaped = 1; (function(){(1")
    assert error.reason == "syntax"
    assert value("typeof globalThis.escaped") == "undefined"


def test_prototype_pollution_keys_stay_own_data() -> None:
    scope = Scope(
        inputs={"__proto__": {"polluted": True}},
        run_outputs={"tool": {"__proto__": {"polluted": True}, "constructor": {"x": 1}}},
    )
    source = """[
      ({}).polluted,
      Object.getPrototypeOf(run.outputs.tool) === Object.prototype,
      run.outputs.tool.__proto__.polluted,
      Object.keys(run.outputs.tool),
      Object.keys(inputs),
      Object.getPrototypeOf(inputs),
    ]"""
    assert value(source, scope) == [
        None,
        True,
        True,
        ["__proto__", "constructor"],
        ["__proto__"],
        None,
    ]


def test_scope_is_frozen_null_prototype_and_const(failure: Failure) -> None:
    scope = Scope(inputs={"deep": {"list": [{"x": 1}]}}, run_outputs={"a": {"b": 1}})
    source = """[
      Object.getPrototypeOf(inputs), Object.getPrototypeOf(ctx), Object.getPrototypeOf(run),
      Object.getPrototypeOf(run.outputs), Object.isFrozen(inputs), Object.isFrozen(run),
      Object.isFrozen(inputs.deep.list[0]), Object.isFrozen(run.outputs.a),
    ]"""
    assert value(source, scope) == [None, None, None, None, True, True, True, True]
    for write in [
        "inputs = 1",
        "run = {}",
        "ctx.x = 1",
        "inputs.deep.list.push(2)",
        "run.outputs.a.b = 2",
        "delete run.outputs.a",
    ]:
        assert failure(write, scope=scope).reason == "runtime", write


def test_branches_is_bound_for_merge_only(failure: Failure) -> None:
    scope = Scope(branches=[{"n": 1}, {"n": 2}])
    assert evaluate("branches.map(b => b.n)", "merge", scope) == [1, 2]
    assert failure("branches", "transform", scope).detail == (
        "ReferenceError: branches is not defined"
    )
    assert failure("branches", "condition", scope).reason == "runtime"


def test_error_instances_can_still_override_frozen_prototype_fields() -> None:
    source = """(() => {
      class ValidationError extends Error {
        constructor(message) { super(message); this.name = 'ValidationError' }
      }
      const error = new ValidationError('bad');
      const plain = new TypeError('t');
      plain.toString = () => 'own';
      return [String(error), Object.keys(error), String(plain), new Error('e').name];
    })()"""
    assert value(source) == ["ValidationError: bad", ["name"], "own", "Error"]


def test_error_prototype_fields_themselves_stay_fixed(failure: Failure) -> None:
    assert failure("Error.prototype.name = 'x'").detail == "TypeError: 'name' is read-only"
    assert failure("InternalError.prototype.toString = () => 'x'").reason == "runtime"
    assert failure("delete RangeError.prototype.message").reason == "runtime"
