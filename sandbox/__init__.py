"""The capped QuickJS expression sandbox (the engine's expression contract).

`evaluate` runs in-process; `WorkerPool` runs the same evaluation in a killable subprocess and is
what the server and the command line use. `check_syntax` is the parse-only check.

Each name is imported from its module on first use: `relavium-lsp check` needs only the syntax
check, not the evaluator, the context supply or the worker pool.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sandbox.errors import ErrorDetail, SandboxError, SourcePosition, SourceRange
    from sandbox.evaluator import evaluate
    from sandbox.limits import MEMORY_LIMIT_BYTES, STACK_LIMIT_BYTES, TIME_LIMIT_MS
    from sandbox.outcome import Outcome
    from sandbox.pool import WorkerPool
    from sandbox.scope import ContextProjection, Scope, ScopeError
    from sandbox.syntax import SyntaxProblem, check_syntax
    from sandbox.transport import Kind

# Where each public name lives (the imports above, for type checkers).
_MODULES = {
    "ErrorDetail": "sandbox.errors",
    "SandboxError": "sandbox.errors",
    "SourcePosition": "sandbox.errors",
    "SourceRange": "sandbox.errors",
    "evaluate": "sandbox.evaluator",
    "MEMORY_LIMIT_BYTES": "sandbox.limits",
    "STACK_LIMIT_BYTES": "sandbox.limits",
    "TIME_LIMIT_MS": "sandbox.limits",
    "Outcome": "sandbox.outcome",
    "WorkerPool": "sandbox.pool",
    "ContextProjection": "sandbox.scope",
    "Scope": "sandbox.scope",
    "ScopeError": "sandbox.scope",
    "SyntaxProblem": "sandbox.syntax",
    "check_syntax": "sandbox.syntax",
    "Kind": "sandbox.transport",
}

__all__ = [
    "MEMORY_LIMIT_BYTES",
    "STACK_LIMIT_BYTES",
    "TIME_LIMIT_MS",
    "ContextProjection",
    "ErrorDetail",
    "Kind",
    "Outcome",
    "SandboxError",
    "Scope",
    "ScopeError",
    "SourcePosition",
    "SourceRange",
    "SyntaxProblem",
    "WorkerPool",
    "check_syntax",
    "evaluate",
]


def __getattr__(name: str) -> object:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MODULES))
