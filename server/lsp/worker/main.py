"""The analysis process's own code: jobs in, diagnoses and answers out (see
`server.lsp.worker.client.AnalysisProcess` for the server's side, `server.lsp.worker.wire` for
what they say).

`serve` starts it before the server loads (`server.lsp.worker.spawn`); it imports only the analysis
and the wire format, never pygls or lsprotocol, so it is ready as soon as the analysis is loaded.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from analysis.checks.analyze import AnalysisResult, AnalysisStopped, analyze
from analysis.checks.rules.graph import unknown_agent
from analysis.diagnostics import Diagnostic
from analysis.document.yaml_nodes import YamlDocument
from analysis.project.workspace import find_project
from server.lsp.worker.framing import read_frame
from server.lsp.worker.wire import (
    READY,
    Answer,
    Diagnosis,
    Edit,
    Question,
    remember,
    write_frame,
)


class Texts:
    """The worker's side of `Edit`: each document's last text and the job that sent it."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[int, str]] = {}

    def received(self, number: int, sent: str | Edit, path: str | None) -> str | None:
        """The text of job `number`, or None when `sent` edits a text this worker does not
        hold."""
        if isinstance(sent, Edit):
            held = self._held.get(path) if path is not None else None
            if held is None or held[0] != sent.base:
                return None
            text = held[1][: sent.start] + sent.inserted + held[1][sent.end :]
        else:
            text = sent
        if path is not None:
            remember(self._held, path, (number, text))
        return text


def diagnosis_of(result: AnalysisResult, max_diagnostics: int) -> Diagnosis:
    """What the server needs to publish `result`'s diagnostics, small to send back: no model,
    and no more of one rule's diagnostics than a client is shown (`max_diagnostics`; a file
    with an unknown key on each of 128,000 lines took 3.4 s to unpickle, holding the server's
    interpreter lock)."""
    kept: list[Diagnostic] = []
    counts: dict[str, int] = {}
    # The analysis process has no agent index (the open agent files' buffers are the server's):
    # a workflow in a project is not judged alone, where an agent its project defines is missing.
    judged_alone = result.path is None or find_project(result.path) is None
    for diagnostic in result.diagnostics:
        if diagnostic.rule == unknown_agent.RULE_ID and not judged_alone:
            continue
        counts[diagnostic.rule] = counts.get(diagnostic.rule, 0) + 1
        if counts[diagnostic.rule] <= max_diagnostics:
            kept.append(diagnostic)
    model_free = AnalysisResult(
        result.source, result.path, YamlDocument(result.source, None, []), None, None,
        kept, result.suppressed[:max_diagnostics],
    )
    omitted = {rule: count - max_diagnostics for rule, count in counts.items()
               if count > max_diagnostics}
    return Diagnosis(model_free, omitted)


class KeptAnalyses:
    """The analysis process's memory: the last analysis of each of the `KEPT_ANALYSES` most
    recent documents (`server.lsp.worker.wire`), and the last one of each that had a model.

    The next version of a document re-reads only the YAML an edit changed (analysis.analyze's
    `previous`); the same text is not analysed again (a question asked about the version just
    diagnosed); a question about a text whose YAML does not parse is answered from the last
    model, as the server answers requests from its last good snapshot."""

    def __init__(self) -> None:
        # path → (last analysis, last analysis with a model), the most recent document last
        self._kept: dict[str, tuple[AnalysisResult, AnalysisResult | None]] = {}
        # entries no longer kept, until `release`
        self._dropped: list[tuple[AnalysisResult, AnalysisResult | None]] = []

    def analysis(self, text: str, path: str | None, should_stop: Callable[[], bool]
                 ) -> AnalysisResult:
        """The analysis of `text` (kept unless `path` is None: nothing says which document)."""
        if path is None:
            return analyze(text, path, should_stop)
        last, good = self._kept.get(path, (None, None))
        # `last` is this memory's alone (questions are answered before the next job), so the
        # analysis may take over its tree (moved in place, not copied); stopped, it gives it
        # back as it was. `good` is never given up: it is `last` only while `last` has a model,
        # and an analysis that moves any of it read the edit alone, so it has one and replaces
        # `good`.
        result = (
            last if last is not None and last.source.text == text
            else analyze(text, path, should_stop, last, take_over=True)
        )
        self._dropped += remember(
            self._kept, path, (result, result if result.workflow is not None else good))
        return result

    def release(self) -> None:
        """Free the analyses no longer kept. The worker calls this once its answer is sent:
        freeing the previous version's analysis (what the new one did not take over) took
        8 ms of each 1-character edit's round trip at 1,000 nodes."""
        self._dropped.clear()

    def last_model(self, path: str | None) -> AnalysisResult | None:
        return self._kept[path][1] if path is not None and path in self._kept else None


def answer_job(
    kept: KeptAnalyses, number: int, text: str, path: str | None, question: Question | None,
    max_diagnostics: int, should_stop: Callable[[], bool],
) -> tuple[Any, ...]:
    """The worker's answer to one job."""
    try:
        result = kept.analysis(text, path, should_stop)
        if question is None:
            return (number, "done", diagnosis_of(result, max_diagnostics))
        answered = result if result.workflow is not None else kept.last_model(path) or result
        diagnosis = diagnosis_of(answered, max_diagnostics)
        return (number, "done", Answer(diagnosis, question(answered), answered is result))
    except AnalysisStopped:
        return (number, "stopped")
    except Exception as error:  # analyze() promises not to raise; never lose the job
        return (number, "failed", f"{type(error).__name__}: {error}")


def warm(kept: KeptAnalyses, text: str, path: str) -> None:
    """A `("warm", text, path)` message: the analysis kept for the server's first job about the
    document (no answer)."""
    with contextlib.suppress(Exception):  # analyze() promises not to raise; that job reports it
        kept.analysis(text, path, _never)
    kept.release()


def _never() -> bool:
    return False


def worker_main() -> None:
    """The analysis process's main loop, on stdin and stdout."""
    from analysis.checks.collector import tune_collector
    from analysis.checks.registry import (
        RULES,  # imported by the first analysis: imported before "ready"
    )

    assert RULES
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # stdout carries the answers: a stray print must not go there
    jobs: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
    cancelled: set[int] = set()
    texts = Texts()

    def read() -> None:
        while (message := read_frame(stdin)) is not None:
            if message[0] == "cancel":
                cancelled.add(message[1])
            elif message[0] == "warm":
                _, text, path = message
                jobs.put((None, text, path, None, 0))
            else:
                _, number, sent, path, question, max_diagnostics = message
                # in the order sent, whether or not the job runs: the server edits the last one
                text = texts.received(number, sent, path)
                jobs.put((number, text, path, question, max_diagnostics))
        os._exit(0)  # the server is gone: stop now, even in the middle of an analysis

    tune_collector()
    threading.Thread(target=read, name="jobs", daemon=True).start()
    write_frame(stdout, READY)
    kept = KeptAnalyses()
    while True:
        number, text, path, question, max_diagnostics = jobs.get()
        if number is None:
            warm(kept, text, path)
            continue
        if text is None:
            write_frame(stdout, (number, "resend"))
            continue
        answer = answer_job(kept, number, text, path, question, max_diagnostics,
                            partial(cancelled.__contains__, number))
        cancelled.discard(number)
        write_frame(stdout, answer, text)
        kept.release()

