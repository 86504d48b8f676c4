"""Issue 9 item 1: expression code cannot rewrite the driver's records or forge a classification.

Each case plants hooks an attacker would use once the expression has returned or thrown —
setters and getters on Array/Object/String prototypes (indexes 0..3 included), toJSON,
Symbol.toPrimitive / toStringTag / iterator — and then returns, throws or reads a secret. The
outcome must be exactly what the spec says without the hooks, in-process and in the worker pool.
Failures must be classified by facts the expression cannot fake: a hand-built "out of memory",
"Maximum call stack size exceeded" or "interrupted" error, or a thrown `null`, is `runtime`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from sandbox import ContextProjection, SandboxError, Scope, WorkerPool, evaluate
from sandbox.transport import Kind

SECRET = "sk-live-do-not-print"
SCOPE = Scope(
    inputs={"a": 1, "key": SECRET},
    ctx=ContextProjection({"tenant": "acme"}, ("auth",), ("tenant", "auth")),
    secret_inputs=frozenset({"key"}),
)

# Each hook tries to turn whatever record the driver hands it into a success `true`.
FORGE = (
    "try { v.arm = 'success'; v.type = 'boolean'; v.payload = 'true'; v.evidence = 'timeout';"
    " v.phase = 'run'; v.detail = 'x'; delete v.tag } catch (e) {}"
)
HOOKS = {
    **{
        f"Array.prototype[{index}] setter": (
            f"Object.defineProperty(Array.prototype, '{index}', {{ configurable: true,"
            f" set(v) {{ {FORGE} Object.defineProperty(this, '{index}', {{ value: v,"
            " writable: true, enumerable: true, configurable: true }) } })"
        )
        for index in range(4)
    },
    "Array.prototype[0] getter": (
        "Object.defineProperty(Array.prototype, '0', { configurable: true,"
        " get() { return 'forged' }, set(v) {} })"
    ),
    "Object.prototype setters": (
        "['v', 'arm', 'type', 'payload', 'phase', 'evidence', 'detail', 'tag', '0', ''].forEach("
        "k => Object.defineProperty(Object.prototype, k, { configurable: true,"
        " get() { return 'success' }, set(v) {} }))"
    ),
    "String.prototype hooks": (
        "['0', '1', '2', '3', 'length'].forEach(k => { try { Object.defineProperty("
        "String.prototype, k, { configurable: true, get() { return '{' } }) } catch (e) {} });"
        " String.prototype.toJSON = () => 'forged';"
        " String.prototype.toString = () => 'forged';"
        " String.prototype.slice = () => '{\"v\":1,\"arm\":\"success\",\"type\":\"boolean\"}';"
        " String.prototype.repeat = () => { throw null };"
        " String.prototype[Symbol.toPrimitive] = () => 'forged';"
        " String.prototype[Symbol.iterator] = function* () { yield 'forged' }"
    ),
    "Object.prototype toJSON and Symbol hooks": (
        "Object.prototype.toJSON = function () { return { arm: 'success', type: 'boolean' } };"
        " Object.prototype[Symbol.toPrimitive] = () => 'forged';"
        " Object.prototype[Symbol.toStringTag] = 'forged';"
        " Array.prototype[Symbol.iterator] = function* () { yield 'forged' };"
        " Array.prototype.join = () => '{\"v\":1,\"arm\":\"success\",\"type\":\"boolean\"}'"
    ),
    "JSON and Reflect replaced": (
        "try { JSON.stringify = () => '{\"v\":1,\"arm\":\"success\",\"type\":\"boolean\"}' }"
        " catch (e) {} try { Reflect.apply = () => 'forged' } catch (e) {}"
        " try { WeakMap.prototype.get = () => undefined } catch (e) {}"
        " try { WeakSet.prototype.has = () => false } catch (e) {}"
    ),
}

# (what the expression does after planting, kind, the exact spec outcome)
ACTIONS: list[tuple[str, str, Kind, object]] = [
    ("caught secret read", "try { ctx.auth } catch (e) {} return 1", "condition", "secret_context"),
    ("caught secret input", "try { inputs.key } catch (e) {} return 1", "transform",
     "secret_context"),
    ("uncaught secret read", "return stringify(ctx)", "condition", "secret_context"),
    ("uncaught secret read", "return stringify(ctx)", "transform", "secret_context"),
    ("uncaught direct read", "return ctx.auth.length", "condition", "secret_context"),
    ("object from a condition", "return {}", "condition", "result_type"),
    ("array from a condition", "return [1]", "condition", "result_type"),
    ("throw 1", "throw 1", "condition", "runtime"),
    ("throw 1", "throw 1", "transform", "runtime"),
    ("return 1", "return 1", "condition", ("value", 1)),
    ("return 1", "return 1", "transform", ("value", 1)),
    ("return an object", "return { n: 1 }", "transform", ("value", {"n": 1})),
]


def program(hook: str, action: str) -> str:
    # `stringify` is taken before the hooks: the read must happen even when a hook replaces it.
    return f"(() => {{ const stringify = JSON.stringify; {hook}; {action} }})()"


def outcome(run: Callable[[str, Kind, Scope], object], source: str, kind: Kind) -> object:
    try:
        return ("value", run(source, kind, SCOPE))
    except SandboxError as error:
        assert SECRET not in f"{error} {error.detail}"
        return error.reason


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    with WorkerPool() as workers:
        yield workers


def expected_value(expected: object, hook: str) -> object:
    # A hook that changes the expression's own result while it serializes is the author's
    # business (toJSON on Object.prototype, a setter handed the result by JSON.stringify's
    # traversal): the result changes as it would in the engine; the driver's records do not.
    if expected == ("value", {"n": 1}):
        if hook == "Object.prototype toJSON and Symbol hooks":
            return ("value", {"arm": "success", "type": "boolean"})
        if hook == "Array.prototype[0] setter":
            return ("value", {"n": 1, "arm": "success", "type": "boolean", "payload": "true",
                              "evidence": "timeout", "phase": "run", "detail": "x"})
    return expected


@pytest.mark.parametrize("hook", list(HOOKS))
@pytest.mark.parametrize(("label", "action", "kind", "expected"), ACTIONS)
def test_hooks_planted_before_returning_or_throwing_change_nothing(
    hook: str, label: str, action: str, kind: Kind, expected: object
) -> None:
    started = time.monotonic()
    assert outcome(evaluate, program(HOOKS[hook], action), kind) == expected_value(expected, hook)
    # `throw 1` must not be retried as an early interrupt for the rest of the second.
    assert time.monotonic() - started < 0.5


@pytest.mark.parametrize("hook", list(HOOKS))
@pytest.mark.parametrize(("label", "action", "kind", "expected"), ACTIONS[::2])
def test_hooks_change_nothing_in_the_worker_pool(
    pool: WorkerPool, hook: str, label: str, action: str, kind: Kind, expected: object
) -> None:
    source = program(HOOKS[hook], action)
    assert outcome(pool.evaluate, source, kind) == expected_value(expected, hook)


def test_hooks_planted_by_a_getter_during_serialization_change_nothing() -> None:
    # The getter runs inside the private serializer, after the expression returned.
    for hook in HOOKS.values():
        source = f"({{ get a() {{ {hook}; return 1 }} }})"
        assert outcome(evaluate, source, "condition") == "result_type"
        assert outcome(evaluate, source, "transform") in (
            ("value", {"a": 1}),
            ("value", {"arm": "success", "type": "boolean"}),
        )
        secret = f"({{ get a() {{ {hook}; try {{ ctx.auth }} catch (e) {{}} return 1 }} }})"
        assert outcome(evaluate, secret, "transform") == "secret_context"


def test_hooks_planted_by_a_thrown_errors_getters_change_nothing() -> None:
    # The driver reads a thrown error's name and message for its private detail.
    for hook in HOOKS.values():
        source = (
            "(() => { const e = new Error('m'); Object.defineProperty(e, 'name', { get() {"
            f" {hook}; return 'E' }} }}); throw e }})()"
        )
        assert outcome(evaluate, source, "condition") == "runtime"


FORGED_FAILURES = [
    "throw null",
    "throw new InternalError('out of memory')",
    "throw new InternalError('string too long')",
    "throw new InternalError('stack overflow')",
    "throw new InternalError('interrupted')",
    "throw new RangeError('Maximum call stack size exceeded')",
    "throw RangeError('Maximum call stack size exceeded')",
    "throw Reflect.construct(Error, ['out of memory'], function () {}.bind().constructor"
    " === Function ? Object.assign(function () {}, { prototype: InternalError.prototype })"
    " : Error)",
    "class Oom extends InternalError {}; throw new Oom('out of memory')",
    # an engine-made TypeError reshaped into an engine-looking memory or stack failure
    "let e; try { null.x } catch (c) { e = c }; Object.setPrototypeOf(e, InternalError.prototype);"
    " Object.defineProperty(e, 'message', { value: 'out of memory' }); throw e",
    "let e; try { null.x } catch (c) { e = c }; Object.setPrototypeOf(e, RangeError.prototype);"
    " Object.defineProperty(e, 'message', { value: 'Maximum call stack size exceeded' });"
    " Error.captureStackTrace(e); throw e",
    "const e = new RangeError('Maximum call stack size exceeded'); Object.defineProperty(e,"
    " 'stack', { value: undefined }); throw e",
    "new Error(); throw null",  # no creation hook runs for this null
    "(() => { let o = {}; for (let i = 0; i < 10; i++) o['k' + i] = i })(); throw undefined",
    "Error.captureStackTrace({}); throw null",
    "try { throw null } catch (e) {} throw null",
    "throw { name: 'InternalError', message: 'out of memory' }",
    "throw Object.create(InternalError.prototype, { message: { value: 'out of memory' } })",
]


@pytest.mark.parametrize("kind", ["condition", "transform"])
@pytest.mark.parametrize("action", FORGED_FAILURES)
def test_hand_built_engine_failures_are_runtime(action: str, kind: Kind) -> None:
    started = time.monotonic()
    error = outcome(evaluate, program("", action), kind)
    assert error == "runtime"
    assert time.monotonic() - started < 0.5  # an "interrupted" look-alike is never rerun


@pytest.mark.parametrize("action", FORGED_FAILURES[:6])
def test_hand_built_engine_failures_are_runtime_in_the_worker_pool(
    pool: WorkerPool, action: str
) -> None:
    assert outcome(pool.evaluate, program("", action), "transform") == "runtime"


def test_genuine_failures_keep_their_reason_after_reshaping() -> None:
    # The evidence is what the engine created, not what the expression turned it into.
    cases = {
        "(() => { let e; try { 'x'.repeat(1 << 23) + 'y'.repeat(1 << 23) } catch (c) { e = c };"
        " Object.setPrototypeOf(e, TypeError.prototype); e.message = 'plain'; throw e })()":
            "memory",
        "(() => { let e; try { (function f() { return f() })() } catch (c) { e = c }; throw e })()":
            "stack",
    }
    for source, reason in cases.items():
        assert outcome(evaluate, source, "transform") == reason


def test_the_genuine_interrupt_is_still_a_retryable_timeout_under_hooks() -> None:
    for hook in HOOKS.values():
        with pytest.raises(SandboxError) as caught:
            evaluate(program(hook, "for (;;) {}"), "transform", SCOPE)
        assert (caught.value.reason, caught.value.retryable) == ("timeout", True)
