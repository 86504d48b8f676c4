"""Starting the analysis process (`server.lsp.worker.main`), stdlib only.

`serve` starts the first one before the server loads: loading the analysis takes the worker
0.3-0.6 s, which a large document's first diagnostics waited for after the server's own loading;
started here, the two load side by side. `server.lsp.worker.client` starts the later ones.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import subprocess

# the directory holding the `server` package, for the worker's isolated (`-I`) interpreter
_PACKAGE_ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
)
_BOOT = (
    f"import sys; sys.path.insert(0, {_PACKAGE_ROOT!r}); "
    "from server.lsp.worker.main import worker_main; worker_main()"
)


def start_analysis_process() -> subprocess.Popen[bytes]:
    """A new analysis process, loading the analysis. Raises OSError when it cannot start."""
    import subprocess  # `serve` calls this after the `initialize` answer is out

    return subprocess.Popen(
        [sys.executable, "-I", "-c", _BOOT],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
    )
