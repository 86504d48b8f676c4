"""Starting the analysis process (`server.lsp.worker.main`).

`serve` starts the first one as soon as `initialize` is answered, before the server loads:
loading the analysis takes the worker 0.3-0.6 s, which a large document's first diagnostics
waited for after the server's own loading; started then, the two load side by side, and a large
document the client opens meanwhile is sent to it at once (`warm`). The server's side
(`server.lsp.worker.client`) starts the later ones. This module imports only the stdlib and
the framing (`sandbox.subprocess_worker` when it starts one), so it loads in no time.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from typing import TYPE_CHECKING

from server.lsp.worker.framing import pickled_frame

if TYPE_CHECKING:
    import subprocess

# Documents at least this long (characters) are diagnosed in the analysis process. Below it an
# analysis takes a few tens of milliseconds and leaves little garbage; above it, analysing in
# the server process fills its heap, and the collector's pauses (each holds the interpreter lock,
# 0.3–0.4 s at 5,000 nodes) stall every request (bench/starve.py shows the split).
LARGE_DOCUMENT_CHARS = 64 * 1024
# How many documents' last texts and analyses the analysis process keeps for the next version
# of each; the server mirrors which texts it holds (`remember`).
KEPT_ANALYSES = 4

# the directory holding the `server` package
_PACKAGE_ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
)


class StartedProcess:
    """An analysis process and the thread writing to it: frames go out in the order `send` was
    called, from any thread, and never block the caller."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        threading.Thread(target=self._write, name="analysis-process-writer", daemon=True).start()

    def send(self, frame: bytes) -> None:
        self._outbox.put(frame)

    def warm(self, text: str, path: str) -> None:
        """Have the process analyse `text` (the document at `path`) and keep the analysis, before
        the server asks (`server.lsp.worker.wire`)."""
        self.send(pickled_frame(("warm", text, path)))

    def close_input(self) -> None:
        """Close the process's input once what was sent is written: it then exits."""
        self._outbox.put(None)

    def _write(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        while (frame := self._outbox.get()) is not None:
            try:
                stdin.write(frame)
                stdin.flush()
            except OSError:
                return  # the reader sees the exit
        with contextlib.suppress(OSError):
            stdin.close()


def start_analysis_process() -> StartedProcess:
    """A new analysis process, loading the analysis. Raises OSError when it cannot start."""
    # imported here: the analysis process reads this module's constants (through `wire`), and
    # would load subprocess for nothing
    from sandbox.subprocess_worker import start_python_worker

    return StartedProcess(
        start_python_worker(_PACKAGE_ROOT, "server.lsp.worker.main", "worker_main"))
