"""The error count of the file `relavium-lsp run` runs, found by the full analysis in a forked
child while the parent runs the workflow's model (`analysis.dryrun.workflow_model`).

A run reads no diagnostic but to say how many errors `check` finds (its first note), and the
checks cost more than the model they check; the workers sit idle until the model is built. So
the checks go aside: the child analyses the file exactly as `run` always has
(`analyze(text, path, workspace=…)`) and writes the count to a pipe, read once the run ended.
Where there is no fork (Windows), or the child does not answer, the count is found in process:
the same number either way, and the same output.
"""

from __future__ import annotations

import os
import signal
import warnings

from analysis.dryrun.launch import error_count
from server.cli.project_agents import workspace_of


def _counted(text: str, path: str) -> int:
    from analysis.checks.analyze import analyze  # in the child: the parent runs without it

    return error_count(analyze(text, path, workspace=workspace_of(path)).diagnostics)


class ErrorsAside:
    """The count of `text`'s errors (read from `path`), started in a child process at once:
    `count()` waits for it, `abandon()` stops the child when no count is wanted (the run did
    not start). Make it before any thread is started: a fork copies the calling thread only."""

    def __init__(self, text: str, path: str) -> None:
        self.text, self.path = text, path
        self._child: int | None = None
        if not hasattr(os, "fork"):
            return
        read_end, write_end = os.pipe()
        try:
            with warnings.catch_warnings():
                # Python 3.12+ warns of any other thread at a fork: here the only one is the
                # idle executor the `quickjs` package starts on import, which the child never
                # uses (the sandbox calls the binding itself), so no lock of it is ever awaited
                warnings.simplefilter("ignore", DeprecationWarning)
                child = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return
        if child == 0:
            try:
                os.close(read_end)
                os.write(write_end, str(_counted(text, path)).encode("ascii"))
            finally:
                os._exit(0)  # whatever happened: never the parent's cleanup, never its output
        os.close(write_end)
        self._child, self._answer = child, read_end

    def count(self) -> int:
        if self._child is None:
            return _counted(self.text, self.path)
        with os.fdopen(self._answer, "rb") as answer:
            written = answer.read()
        self._reap()
        return int(written) if written.isdigit() else _counted(self.text, self.path)

    def abandon(self) -> None:
        if self._child is not None:
            os.kill(self._child, signal.SIGKILL)
            os.close(self._answer)
            self._reap()

    def _reap(self) -> None:
        assert self._child is not None
        os.waitpid(self._child, 0)
        self._child = None
