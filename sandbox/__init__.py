"""The capped QuickJS expression sandbox (the engine's expression contract).

`evaluate` runs in-process; `WorkerPool` runs the same evaluation in a killable subprocess and is
what the server and the command line use. `check_syntax` is the parse-only check.
"""

from sandbox.errors import ErrorDetail, SandboxError, SourcePosition, SourceRange
from sandbox.evaluator import evaluate
from sandbox.limits import MEMORY_LIMIT_BYTES, STACK_LIMIT_BYTES, TIME_LIMIT_MS
from sandbox.outcome import Outcome
from sandbox.pool import WorkerPool
from sandbox.scope import ContextProjection, Scope, ScopeError
from sandbox.syntax import SyntaxProblem, check_syntax
from sandbox.transport import Kind

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
