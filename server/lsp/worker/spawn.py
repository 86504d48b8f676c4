"""Starting the analysis process (`server.lsp.worker.main`).

`serve` starts the first one as soon as `initialize` is answered, before the server loads:
loading the analysis takes the worker 0.3-0.6 s, which a large document's first diagnostics
waited for after the server's own loading; started then, the two load side by side. The
server's side (`server.lsp.worker.client`) starts the later ones. This module imports only the
stdlib and `sandbox.subprocess_worker`, so it loads in no time.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from sandbox.subprocess_worker import start_python_worker

if TYPE_CHECKING:
    import subprocess

# the directory holding the `server` package
_PACKAGE_ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
)


def start_analysis_process() -> subprocess.Popen[bytes]:
    """A new analysis process, loading the analysis. Raises OSError when it cannot start."""
    return start_python_worker(_PACKAGE_ROOT, "server.lsp.worker.main", "worker_main")
