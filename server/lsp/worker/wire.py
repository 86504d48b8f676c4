"""What the server and its analysis process say to each other over the worker's pipes.

Each message is a pickled tuple behind its length (`frame`; `server.lsp.worker.framing`). The
server sends `("analyze", number, text or Edit, path, question, max_diagnostics)`,
`("cancel", number)`, and `("warm", text, path)`: a large document opened while the server
loads, analysed ahead and kept (no answer), which the server's first job for it then finds;
the worker says `READY` once it has imported the analysis, then answers each job in the order
sent: `(number, "done", Diagnosis or Answer)`, `(number, "stopped")`, `(number, "failed",
why)`, or `(number, "resend")` when it does not hold the text an `Edit` was made to. Only this
package's two processes speak on these pipes, so unpickling trusts the sender.
"""

from __future__ import annotations

import copyreg
import io
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import IO, Any, NamedTuple, TypeVar

from analysis.checks.analyze import AnalysisResult
from analysis.document.source import SourceText
from server.lsp.worker.framing import pickled_frame
from server.lsp.worker.spawn import KEPT_ANALYSES

T = TypeVar("T")

# what a worker says once it has imported the analysis
READY = (-1, "ready")


@dataclass(frozen=True)
class Diagnosis:
    """A large document's diagnostics from the analysis process: the result without its model
    (YAML tree, workflow, graph), at most the job's `max_diagnostics` of each rule, and how many
    of each rule were left out."""

    result: AnalysisResult
    omitted: dict[str, int]


# A question about a document's model, asked in the analysis process: a module-level function
# (it is sent by name) of an analysis with a model, returning plain data (no model objects).
Question = Callable[[AnalysisResult], Any]


@dataclass(frozen=True)
class Answer:
    """A question's value and the diagnosis of the analysis it was computed from: the analysis
    of the text asked about (`current`), or, when that has no model (the YAML does not parse),
    the document's last one that had, whose text `diagnosis.result.source` holds."""

    diagnosis: Diagnosis
    value: Any
    current: bool


class Edit(NamedTuple):
    """A job's text sent as an edit of an earlier job's text of the same document: that text
    with `[start:end]` replaced by `inserted`. The worker keeps each document's last text
    (`server.lsp.worker.main.Texts`); the whole text of a 1,000-node document took ~1 ms per
    keystroke to send and read. A worker that does not have that text (a new one, or one that
    forgot the document) answers "resend", and the server sends the whole text."""

    base: int  # the number of the job whose text this edits
    start: int
    end: int
    inserted: str


def remember(kept: dict[str, T], path: str, value: T) -> list[T]:
    """Keep `value` as `path`'s, the most recent; forget the least recent beyond
    `KEPT_ANALYSES` documents. What it no longer keeps: `path`'s earlier value, and those
    forgotten."""
    dropped = [kept.pop(path)] if path in kept else []
    kept[path] = value
    while len(kept) > KEPT_ANALYSES:
        dropped.append(kept.pop(next(iter(kept))))
    return dropped


def write_frame(stream: IO[bytes], message: tuple[Any, ...], asked: str | None = None) -> None:
    stream.write(frame(message, asked))
    stream.flush()


def frame(message: tuple[Any, ...], asked: str | None = None) -> bytes:
    """`message` pickled behind its length; with `asked` (the job's text, in the worker), a
    `SourceText` of that text without the text."""
    if asked is None:
        return pickled_frame(message)
    # per type, looked up in C: no call for every object, as `persistent_id` would make
    return pickled_frame(
        message, {**copyreg.dispatch_table, SourceText: partial(_reduce_source, asked)})


# The worker's answer is about the text the server sent it: that text does not go back (it was
# as long again as the rest of a 1,000-node answer, and reading it took the server ~1 ms, more
# on a busy machine); a `SourceText` of it travels as its line starts only, and the server puts
# its own copy of the text back in (`AnswerUnpickler`).


def _reduce_source(asked: str, source: SourceText) -> Any:
    if source.text == asked:
        return _asked_source, (source.line_starts,)
    return source.__reduce_ex__(pickle.HIGHEST_PROTOCOL)


def _asked_source(asked: str, line_starts: list[int]) -> SourceText:
    """The `SourceText` of the job's text with the line starts the worker found, built as
    unpickling builds one (without `__init__`, which would find them again)."""
    source: SourceText = object.__new__(SourceText)
    source.text, source.line_starts = asked, line_starts
    return source


class AnswerUnpickler(pickle.Unpickler):
    """Reads an answer about `asked`, the text of the job it answers."""

    def __init__(self, body: bytes, asked: str | None) -> None:
        super().__init__(io.BytesIO(body))
        self._asked = asked

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == _asked_source.__name__:
            if self._asked is None:
                raise pickle.UnpicklingError("an answer about a text no job sent")
            return partial(_asked_source, self._asked)
        return super().find_class(module, name)
