"""Python worker processes, started and stopped the same way by every pool of them: the
sandbox's `WorkerPool` (`sandbox.worker`) and the language server's analysis process.

Stdlib only, and nothing of the sandbox: the language server imports it before anything else.
"""

from __future__ import annotations

import subprocess
import sys


def start_python_worker(
    package_root: str, module: str, function: str, *, stderr: int | None = None
) -> subprocess.Popen[bytes]:
    """A new interpreter calling `module.function()`, reading requests on its stdin and
    answering on its stdout (pipes). Isolated (`-I`: no user site, environment or current
    directory on its path) but for `package_root`, the directory holding the caller's copy of
    the package, whichever way it is installed. Raises OSError when it cannot start."""
    boot = (
        f"import sys; sys.path.insert(0, {package_root!r}); "
        f"from {module} import {function}; {function}()"
    )
    return subprocess.Popen(
        [sys.executable, "-I", "-c", boot],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
    )


def kill_worker(process: subprocess.Popen[bytes]) -> None:
    """Stop the worker at once and reap it."""
    process.kill()
    process.wait()
