"""`evaluate`: one bare expression against a scope, the whole sandbox contract, in-process.

Synchronous and thread-safe (each call owns a fresh runtime). The 1000 ms wall-clock cap holds
in-process for JavaScript, however loaded the machine (a watchdog trips QuickJS's interrupt at
the deadline, see `sandbox.wall_clock`), but a single native step that never polls the interrupt
runs to its end first, and a few native loops practically never end. Callers that must never
hang use `WorkerPool`, which prepares requests with `prepare` here and runs them in a killable
subprocess. docs/sandbox.md ("Where the caps hold") states both exactly.
"""

from __future__ import annotations

from typing import Any, Literal, overload

from sandbox.authored import authored_script
from sandbox.detail import error_detail
from sandbox.errors import FailureSite, SandboxError
from sandbox.outcome import Outcome
from sandbox.scope import Scope, ScopeError
from sandbox.syntax import check_syntax
from sandbox.transport import KINDS, Kind
from sandbox.vm import run_request

# The class a parse failure is shown as in the author detail.
_PARSE_FAILURE_CLASSES = {None: "SyntaxError", "stack": "RangeError", "memory": "InternalError"}


def bindings_for(kind: Kind) -> tuple[str, ...]:
    return ("inputs", "ctx", "run", "branches") if kind == "merge" else ("inputs", "ctx", "run")


def prepare(source: str, kind: Kind, scope: Scope) -> str:
    """Check the source and marshal the scope: the VM request, or a syntax/scope SandboxError."""
    if kind not in KINDS:
        raise SandboxError("scope", f"unknown expression kind {kind!r}")
    problem = check_syntax(source)
    if problem is not None:
        reason = problem.cap or "syntax"
        site = FailureSite(
            _PARSE_FAILURE_CLASSES[problem.cap], problem.message, source_offset=problem.offset
        )
        raise SandboxError(reason, f"{problem.message} (at offset {problem.offset})", site)
    try:
        return scope.vm_request(kind, authored_script(source, bindings_for(kind)))
    except ScopeError as error:
        raise SandboxError("scope", str(error)) from None


@overload
def evaluate(
    source: str, kind: Kind, scope: Scope, *, with_detail: Literal[False] = False
) -> Any: ...


@overload
def evaluate(source: str, kind: Kind, scope: Scope, *, with_detail: Literal[True]) -> Outcome: ...


def evaluate(source: str, kind: Kind, scope: Scope, *, with_detail: bool = False) -> Any:
    """Evaluate a bare expression of `kind` against `scope`; return its JSON-like value.

    Top-level NaN, ±Infinity and -0 come back as the floats they are. Raises only SandboxError.
    In-process: a native step that never polls the interrupt can outlast the wall-clock cap (its
    verdict is never a value then); only `WorkerPool` kills it.
    With `with_detail`, returns an `Outcome` instead (never raising SandboxError) whose `detail`
    is the author's own error for a failure (see `Outcome.detail`).
    """
    if not with_detail:
        return run_request(prepare(source, kind, scope), kind)
    try:
        return Outcome(value=run_request(prepare(source, kind, scope), kind))
    except SandboxError as error:
        return failed_outcome(source, error)


def failed_outcome(source: str, error: SandboxError) -> Outcome:
    """The Outcome of a failure, with the author detail."""
    return Outcome(error=error, detail=error_detail(source, error))
