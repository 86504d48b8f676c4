"""`evaluate`: one bare expression against a scope, the whole sandbox contract, in-process.

Synchronous and thread-safe (each call owns a fresh runtime). A few native loops ignore
QuickJS's interrupt, so callers that must never hang use `WorkerPool`, which prepares requests
with `prepare` here and runs them in a killable subprocess.
"""

from __future__ import annotations

from typing import Any

from sandbox.authored import authored_script
from sandbox.errors import SandboxError
from sandbox.scope import Scope, ScopeError
from sandbox.syntax import check_syntax
from sandbox.transport import KINDS, Kind
from sandbox.vm import run_request


def bindings_for(kind: Kind) -> tuple[str, ...]:
    return ("inputs", "ctx", "run", "branches") if kind == "merge" else ("inputs", "ctx", "run")


def prepare(source: str, kind: Kind, scope: Scope) -> str:
    """Check the source and marshal the scope: the VM request, or a syntax/scope SandboxError."""
    if kind not in KINDS:
        raise SandboxError("scope", f"unknown expression kind {kind!r}")
    problem = check_syntax(source)
    if problem is not None:
        reason = problem.cap or "syntax"
        raise SandboxError(reason, f"{problem.message} (at offset {problem.offset})")
    try:
        return scope.vm_request(kind, authored_script(source, bindings_for(kind)))
    except ScopeError as error:
        raise SandboxError("scope", str(error)) from None


def evaluate(source: str, kind: Kind, scope: Scope) -> Any:
    """Evaluate a bare expression of `kind` against `scope`; return its JSON-like value.

    Top-level NaN, ±Infinity and -0 come back as the floats they are. Raises only SandboxError.
    """
    return run_request(prepare(source, kind, scope), kind)
