"""Analysis scheduling inside one server object: what a burst of edits costs.

In process, because the protocol does not show how many analyses run at once; the analysis
itself is the real one, only watched.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import os
import pickle
import signal
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from lsprotocol import types

import server.lsp.session as session
from analysis.checks.analyze import AnalysisResult, AnalysisStopped, analyze
from analysis.ide.highlighting import expression_tokens
from analysis.ide.outline import folds, outline, runnable
from analysis.project.workspace import WorkspaceIndex
from server.lsp.analysis_queue import AnalysisQueue
from server.lsp.diagnostics import MAX_DIAGNOSTICS
from server.lsp.language_server import RelaviumLanguageServer, create_server
from server.lsp.serving import View, placed_answer
from server.lsp.settings import Settings
from server.lsp.worker import client, framing, main, spawn, wire
from server.lsp.worker.main import KeptAnalyses
from server.lsp.worker.spawn import start_analysis_process
from server.lsp.worker.wire import Answer, Diagnosis, Question
from tests.analysis.document.test_incremental_read import typed
from tests.analysis.document.test_take_over import MIDDLE, stopping_at, view
from tests.analysis.large_workflow import large_workflow
from tests.server.questions import analysed_text

T = TypeVar("T")
URI = "file:///tmp/scheduling/burst.relavium.yaml"


def initialized_server() -> RelaviumLanguageServer:
    ls = create_server()
    # a pull client: nothing is pushed, so no transport is needed
    capabilities = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            diagnostic=types.DiagnosticClientCapabilities()
        )
    )
    initialize = ls.protocol.lsp_initialize(types.InitializeParams(capabilities=capabilities))
    with pytest.raises(StopIteration):
        while True:
            next(initialize)
    return ls


async def test_typing_with_requests_runs_one_analysis_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lock = threading.Lock()
    running = [0]
    overlaps: list[int] = []
    threads: set[str] = set()
    real_analyze = session.analyze

    def watched(
        text: str, path: str | None = None, should_stop: Callable[[], bool] = lambda: False,
        previous: AnalysisResult | None = None, workspace: WorkspaceIndex | None = None,
    ) -> AnalysisResult:
        threads.add(threading.current_thread().name)
        with lock:
            running[0] += 1
            overlaps.append(running[0])
        try:
            return real_analyze(text, path, should_stop, previous, workspace=workspace)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(session, "analyze", watched)
    ls = initialized_server()
    text = large_workflow(100)  # 1,000 nodes: an analysis takes longer than a keystroke
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    requests = []
    for version in range(2, 32):
        text += "#"
        ls.change_document(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        # each keystroke's completion wants the analysis of the text as typed
        requests.append(asyncio.ensure_future(ls.fresh_snapshot(URI)))
        await asyncio.sleep(0.005)
    snapshots = await asyncio.gather(*requests)
    assert {snapshot.version for snapshot in snapshots if snapshot is not None} == {31}
    # Starting the next analysis beside a superseded one (one per keystroke) left the CPU-bound
    # threads competing and the answers seconds late.
    assert max(overlaps) == 1, overlaps
    assert len(overlaps) < len(requests)
    # never on pygls' pool, which request handlers need
    assert threads and all(name.startswith("analysis-") for name in threads), threads
    ls.thread_pool.shutdown()
    ls.analysis_process.close()


async def test_a_superseded_analysis_stops_instead_of_finishing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    outcomes: list[tuple[int, str]] = []
    started: list[int] = []
    real_analyze = session.analyze
    ls = initialized_server()
    ls.large_document_chars = sys.maxsize  # every document analysed in this process

    def watched(
        text: str, path: str | None = None, should_stop: Callable[[], bool] = lambda: False,
        previous: AnalysisResult | None = None, workspace: WorkspaceIndex | None = None,
    ) -> AnalysisResult:
        version = ls.documents[URI].version
        started.append(version)
        try:
            result = real_analyze(text, path, should_stop, previous, workspace=workspace)
        except AnalysisStopped:
            outcomes.append((version, "stopped"))
            raise
        outcomes.append((version, "finished"))
        return result

    monkeypatch.setattr(session, "analyze", watched)
    text = large_workflow(100)
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    while not started:  # let the first analysis get going, then supersede it
        await asyncio.sleep(0.001)
    for version in (2, 3):
        ls.change_document(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text + "#")],
            )
        )
    snapshot = await ls.fresh_snapshot(URI)
    assert snapshot is not None and snapshot.version == 3
    assert (3, "finished") in outcomes
    assert any(outcome == "stopped" for _, outcome in outcomes), outcomes
    assert all(version == 3 for version, outcome in outcomes if outcome == "finished"), outcomes


async def test_a_small_document_is_analysed_before_large_ones_waiting() -> None:
    queue = AnalysisQueue(workers=1)
    release = threading.Event()
    order: list[str] = []
    blocker = queue.submit(0, release.wait)
    large = queue.submit(10_000, lambda: order.append("large"))
    small = queue.submit(10, lambda: order.append("small"))
    release.set()
    await asyncio.gather(blocker, large, small)
    assert order == ["small", "large"]


async def test_an_analysis_error_reaches_the_awaiting_task() -> None:
    def fail() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await AnalysisQueue(workers=1).submit(1, fail)


def change(ls: RelaviumLanguageServer, version: int, text: str) -> None:
    ls.change_document(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def watch_process_jobs(ls: RelaviumLanguageServer) -> list[asyncio.Future[Diagnosis]]:
    jobs: list[asyncio.Future[Diagnosis]] = []
    real_submit = ls.analysis_process.submit

    def submit(
        text: str, path: str | None, superseded: Callable[[], bool]
    ) -> asyncio.Future[Diagnosis]:
        jobs.append(real_submit(text, path, superseded))
        return jobs[-1]

    ls.analysis_process.submit = submit  # type: ignore[method-assign]
    return jobs


def watch_analyses(
    monkeypatch: pytest.MonkeyPatch, module: object,
    seen: Callable[[str, AnalysisResult | None], object],
) -> None:
    """`seen(text, previous)` as each analysis `module` runs starts."""
    real_analyze = analyze

    def watched(
        text: str, path: str | None = None, should_stop: Callable[[], bool] = lambda: False,
        previous: AnalysisResult | None = None, take_over: bool = False,
        workspace: WorkspaceIndex | None = None,
    ) -> AnalysisResult:
        seen(text, previous)
        return real_analyze(text, path, should_stop, previous, take_over, workspace)

    monkeypatch.setattr(module, "analyze", watched)


def watch_server_analyses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The lengths of the texts analysed in the server process, as they start."""
    in_server: list[int] = []
    watch_analyses(monkeypatch, session, lambda text, _: in_server.append(len(text)))
    return in_server


async def test_a_large_document_is_diagnosed_in_the_analysis_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its analyses fill another process's heap; this one computes the model only when a
    request needs it, beside the diagnosis."""
    in_server = watch_server_analyses(monkeypatch)
    ls = initialized_server()
    jobs = watch_process_jobs(ls)
    text = large_workflow(40).replace("type: transform", "type: transfrom", 1)
    assert len(text) >= ls.large_document_chars
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    diagnosis = await ls.fresh_snapshot(URI, model=False)
    assert diagnosis is not None and not diagnosis.has_model and not diagnosis.is_good
    assert "invalid-value" in {d.rule for d in diagnosis.result.diagnostics}
    assert len(jobs) == 1 and in_server == []
    assert ls.analysis_process.pid not in (None, os.getpid())
    model = await ls.fresh_snapshot(URI)
    assert model is not None and model.is_good and model.version == 1
    assert in_server == [len(text)]
    assert model.result.diagnostics == diagnosis.result.diagnostics
    ls.analysis_process.close()
    ls.thread_pool.shutdown()


async def test_a_superseded_version_is_stopped_in_the_analysis_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(client, "STOP_GRACE_SECONDS", 60.0)  # it stops at a checkpoint
    ls = initialized_server()
    jobs = watch_process_jobs(ls)
    text = large_workflow(300)  # 3,000 nodes: a second or so
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    while not jobs:
        await asyncio.sleep(0.001)
    change(ls, 2, text + "#")
    change(ls, 3, text + "##")
    snapshot = await ls.fresh_snapshot(URI, model=False)
    assert snapshot is not None and snapshot.version == 3
    with pytest.raises(AnalysisStopped):
        jobs[0].result()
    # version 2 never started: version 1 had not stopped when 3 superseded it
    assert len(jobs) == 2 and jobs[1].result().result is snapshot.result
    # a job that stops in time costs no process: a spare (and its cold caches) is the last resort
    assert ls.analysis_process._spare is None and ls.analysis_process.forced_stops == 0
    ls.analysis_process.close()
    ls.thread_pool.shutdown()


async def test_a_worker_that_dies_is_replaced_and_its_job_analysed_in_the_server() -> None:
    ls = initialized_server()
    jobs = watch_process_jobs(ls)
    text = large_workflow(300)
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    while not jobs:
        await asyncio.sleep(0.001)
    first = ls.analysis_process.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    snapshot = await ls.fresh_snapshot(URI, model=False)
    assert snapshot is not None and snapshot.version == 1 and snapshot.has_model
    assert ls.analysis_process.deaths == 1
    change(ls, 2, text + "#")
    snapshot = await ls.fresh_snapshot(URI, model=False)
    assert snapshot is not None and snapshot.version == 2 and not snapshot.has_model
    assert ls.analysis_process.pid not in (None, first)
    ls.analysis_process.close()
    ls.thread_pool.shutdown()


async def test_a_job_that_does_not_stop_in_time_is_killed_and_a_spare_takes_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(client, "STOP_GRACE_SECONDS", 0.0)
    ls = initialized_server()
    jobs = watch_process_jobs(ls)
    text = large_workflow(500)  # 5,000 nodes: its first stage alone outlasts the grace
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    while not jobs:
        await asyncio.sleep(0.001)
    process = ls.analysis_process
    process._spare = spare = process._new_worker()  # as the grace's end would start one
    while process._worker is None or not process._worker.ready or not spare.ready:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)  # inside the analysis, between checkpoints
    killed = process.pid
    change(ls, 2, text + "#")
    snapshot = await ls.fresh_snapshot(URI, model=False)
    assert snapshot is not None and snapshot.version == 2 and not snapshot.has_model
    with pytest.raises(AnalysisStopped):
        jobs[0].result()
    assert process.forced_stops == 1 and process.deaths == 0
    assert process.pid == spare.process.pid != killed
    process.close()
    ls.thread_pool.shutdown()


async def test_a_worker_that_cannot_start_leaves_the_analysis_to_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    ls = initialized_server()
    text = large_workflow(40)
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    snapshot = await ls.fresh_snapshot(URI, model=False)
    assert snapshot is not None and snapshot.version == 1 and snapshot.has_model
    assert ls.analysis_process.deaths == 1
    # and what needs the model is answered from the server's
    answered = await placed_answer(ls, URI, outline, as_placed)
    assert answered is not None
    view, groups = answered
    assert view.snapshot is snapshot and groups == outline(snapshot.result)
    ls.thread_pool.shutdown()


def as_placed(view: View, answer: T) -> tuple[View, T]:
    return view, answer


@pytest.mark.parametrize("question", [outline, folds, expression_tokens, runnable])
async def test_what_an_editor_shows_of_a_large_document_is_computed_in_the_analysis_process(
    monkeypatch: pytest.MonkeyPatch, question: Question
) -> None:
    """An editor showing the document asks for these after every edit: the server answers from
    the analysis process's model instead of building one of its own (its collector's pauses
    over several such models stalled every other request)."""
    in_server = watch_server_analyses(monkeypatch)
    ls = initialized_server()
    text = large_workflow(40)
    assert len(text) >= ls.large_document_chars
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    asking = asyncio.ensure_future(placed_answer(ls, URI, question, as_placed))
    process = ls.analysis_process
    while not asking.done() and not any(
        job.question for job in [*process._queue, process._running] if job
    ):
        await asyncio.sleep(0.001)
    # superseded while asked: the answer is about the newest version
    renamed = text.replace("b3-route", "b3-routing")
    change(ls, 2, renamed)
    answered = await asking
    assert answered is not None
    view, answer = answered
    assert view.snapshot.version == 2 and view.current and not view.snapshot.has_model
    # the server's own text, not the worker's equal copy: placing compares it with the live
    # one per offset (a 1 MB comparison each time made a 5,000-node outline take seconds)
    assert view.snapshot.text is ls.documents[URI].text
    assert answer == question(analyze(renamed)) != question(analyze(text))
    assert in_server == []
    # the answer's analysis is the version's diagnosis too: no second one to wait for
    diagnosis = await ls.fresh_snapshot(URI, model=False)
    assert diagnosis is not None and diagnosis.version == 2
    ls.analysis_process.close()
    ls.thread_pool.shutdown()


async def test_requests_asking_the_same_share_one_answer() -> None:
    ls = initialized_server()
    asked: list[int] = []
    real_ask = ls.analysis_process.ask

    def ask(text: str, path: str | None, superseded: Callable[[], bool], question: Question
            ) -> asyncio.Future[Answer]:
        asked.append(len(text))
        return real_ask(text, path, superseded, question)

    ls.analysis_process.ask = ask  # type: ignore[method-assign]
    text = large_workflow(40)
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    first, second, third = (
        asyncio.ensure_future(placed_answer(ls, URI, outline, as_placed)) for _ in range(3)
    )
    await asyncio.sleep(0)
    first.cancel()  # one asker gone: the others still get the answer
    answers = [(await second), (await third)]
    assert first.cancelled()
    assert asked == [len(text)]
    assert [answer[1] for answer in answers if answer] == [outline(analyze(text))] * 2
    # a folds request is another question
    assert await placed_answer(ls, URI, folds, as_placed) is not None
    assert asked == [len(text)] * 2
    ls.analysis_process.close()
    ls.thread_pool.shutdown()


def test_the_analysis_process_analyses_a_text_once_and_answers_from_its_last_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, AnalysisResult | None]] = []
    watch_analyses(monkeypatch, main, lambda text, previous: calls.append((text, previous)))
    kept = KeptAnalyses()
    text = large_workflow(2)
    path = "/tmp/kept.relavium.yaml"
    first = kept.analysis(text, path, lambda: False)
    assert kept.analysis(text, path, lambda: False) is first  # a question about that version
    assert calls == [(text, None)]
    broken = text + "nodes: [\n"
    result = kept.analysis(broken, path, lambda: False)
    assert calls[-1] == (broken, first)  # the next version re-reads only what changed
    assert result.workflow is None and kept.last_model(path) is first
    # the question's answer comes from the last model, with its text
    answer = main.answer_job(kept, 7, broken, path, outline, MAX_DIAGNOSTICS, lambda: False)
    assert answer[:2] == (7, "done")
    assert not answer[2].current and answer[2].diagnosis.result.source.text == text
    assert answer[2].value == outline(first)
    for other in range(spawn.KEPT_ANALYSES):  # the least recent document is forgotten
        kept.analysis(text, f"/tmp/other-{other}.relavium.yaml", lambda: False)
    assert kept.last_model(path) is None
    assert kept.last_model(None) is None
    kept.analysis(text, None, lambda: False)
    assert calls[-1] == (text, None)


def test_the_analysis_process_frees_what_it_no_longer_keeps_only_when_released() -> None:
    """Freeing the previous version's analysis is left until the answer is sent (`release`):
    done inside `analysis` it took 8 ms of each edit's round trip at 1,000 nodes."""
    kept = KeptAnalyses()
    text = large_workflow(2)
    path = "/tmp/kept.relavium.yaml"
    first = weakref.ref(kept.analysis(text, path, lambda: False))
    second = kept.analysis(text + "#\n", path, lambda: False)
    assert first() is not None
    kept.release()
    assert first() is None  # freed by reference counting, no collection needed
    others = [f"/tmp/other-{other}.relavium.yaml" for other in range(spawn.KEPT_ANALYSES)]
    for other in others:  # the least recent document is forgotten
        kept.analysis(text, other, lambda: False)
    forgotten = weakref.ref(second)
    del second
    assert forgotten() is not None
    kept.release()
    assert forgotten() is None
    assert kept.last_model(others[0]) is not None


def test_an_answer_leaves_out_the_text_it_is_about_and_the_server_puts_its_own_back() -> None:
    """The analysis process sent the job's text back with every answer: as long again as the
    rest of an answer at 1,000 nodes, and ~1 ms of reading it per edit."""
    kept = KeptAnalyses()
    path = "/tmp/kept.relavium.yaml"
    text = large_workflow(20) + "surplus: Ä\n"  # a diagnostic, and a character beyond ASCII
    answer = main.answer_job(kept, 3, text, path, None, MAX_DIAGNOSTICS, lambda: False)
    framed = wire.frame(answer, text)
    assert len(framed) < len(text) / 4
    sent = answer[2].result
    assert sent.diagnostics
    server_copy = text.encode().decode()  # equal, and not the worker's object

    def read(framed: bytes, asked: str | None) -> tuple[object, ...]:
        def unpickled(body: bytes) -> object:
            return wire.AnswerUnpickler(body, asked).load()

        message: tuple[object, ...] = framing.read_frame(io.BytesIO(framed), unpickled)
        return message

    number, kind, diagnosis = read(framed, server_copy)
    assert (number, kind) == (3, "done") and isinstance(diagnosis, Diagnosis)
    received = diagnosis.result
    assert received.source.text is server_copy
    assert received.source.line_starts == sent.source.line_starts
    assert received.diagnostics == sent.diagnostics
    assert received.source.position(len(text) - 2) == sent.source.position(len(text) - 2)
    with pytest.raises(pickle.UnpicklingError):  # never a text no job sent
        read(framed, None)
    # a question about a text whose YAML does not parse is answered from the last model: that
    # model's text is not the one sent, so it goes along
    broken = text + "nodes: [\n"
    answer = main.answer_job(kept, 4, broken, path, outline, MAX_DIAGNOSTICS, lambda: False)
    _, _, answered = read(wire.frame(answer, broken), broken)
    assert isinstance(answered, Answer) and not answered.current
    assert answered.diagnosis.result.source.text == text
    assert answered.value == answer[2].value
def test_the_analysis_process_builds_each_version_on_the_last_one_it_kept() -> None:
    """A typing burst in the analysis process: each analysis takes over the last one's tree
    and declarations (moved in place, not copied); one stopped gives them back as they were,
    so the next one still builds on them; each finished one is a fresh analysis of its text."""
    kept = KeptAnalyses()
    path = "/tmp/burst.relavium.yaml"
    text = large_workflow(6)
    first = kept.analysis(text, path, lambda: False)
    assert first.workflow is not None
    last_node, last_edge = first.workflow.nodes[-1], first.workflow.edges[-1]
    finished = []
    for keystroke in range(12):
        text = typed(text, MIDDLE, str(keystroke % 10))
        if keystroke % 2:
            with pytest.raises(AnalysisStopped):  # before one of the rules
                kept.analysis(text, path, stopping_at(3 + keystroke, lambda: None))
            continue
        result = kept.analysis(text, path, lambda: False)
        finished.append(result)
        assert view(result) == view(analyze(text, path))
        assert result.workflow is not None
        # the declarations after the edit are still the first analysis's own objects
        assert result.workflow.nodes[-1] is last_node and result.workflow.edges[-1] is last_edge
    assert first.given_up and all(result.given_up for result in finished[:-1])
    assert kept.last_model(path) is finished[-1] and not finished[-1].given_up


async def test_the_server_s_own_analysis_leaves_the_snapshot_it_builds_on_as_it_was() -> None:
    """In the server process requests read the last snapshot while the next version is
    analysed: that analysis builds on it without moving or changing any of it."""
    ls = initialized_server()
    text = large_workflow(2)  # small: analysed in this process
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    snapshot = await ls.fresh_snapshot(URI, model=True)
    assert snapshot is not None
    seen = view(snapshot.result)
    change(ls, 2, typed(text, MIDDLE.replace("b3", "b1"), "2"))
    later = await ls.fresh_snapshot(URI, model=True)
    assert later is not None and later.version == 2
    assert view(later.result) == view(analyze(later.text, later.result.path))
    assert later.result.workflow is not None and snapshot.result.workflow is not None
    assert later.result.workflow.nodes[0] is snapshot.result.workflow.nodes[0]  # built on it
    assert view(snapshot.result, own_source=False) == seen and not snapshot.result.given_up
    ls.analysis_process.close()
    ls.thread_pool.shutdown()


async def test_only_an_analysis_that_builds_on_an_earlier_one_sets_how_long_edits_wait() -> None:
    """The open's analysis is cold (nothing to build on, empty caches): the first edits after
    it waited the whole default debounce (bench/yamlls.py: edit p95 1.63x p50)."""
    ls = initialized_server()
    text = large_workflow(2)
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    state = ls.documents[URI]
    assert await ls.fresh_snapshot(URI, model=False) is not None
    assert state.last_analysis_ms is None and state.edited_at is None
    change(ls, 2, text + "#")
    assert state.pending_delay_ms == 0  # the first edit is analysed at once
    snapshot = await ls.fresh_snapshot(URI, model=False)
    assert snapshot is not None and snapshot.version == 2
    assert state.last_analysis_ms is not None and state.edited_at is not None
    ls.analysis_process.close()
    ls.thread_pool.shutdown()


async def test_a_pull_waits_out_the_debounce_instead_of_skipping_it() -> None:
    """A client pulls after every change: skipping the debounce for it analysed every keystroke
    of a burst (bench/burst.py, pull)."""
    ls = initialized_server()
    ls.settings = Settings(debounce_ms=10_000)
    ls.settings_settled.set()
    text = large_workflow(2)
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    assert await ls.fresh_snapshot(URI, model=False) is not None
    change(ls, 2, text + "#")
    state = ls.documents[URI]
    pull = ls.protocol.fm.features[types.TEXT_DOCUMENT_DIAGNOSTIC]
    asked = asyncio.ensure_future(pull(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=URI))))
    for _ in range(10):
        await asyncio.sleep(0)
    assert not asked.done() and state.pending_delay_ms == 10_000
    ls.save_document(URI)  # saving ends the debounce: the pull is answered with that analysis
    report = await asked
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert report.result_id is not None and report.result_id.split(".")[1] == "2"
    ls.analysis_process.close()
    ls.thread_pool.shutdown()


async def test_saving_while_the_version_is_analysed_does_not_analyse_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ls = initialized_server()
    ls.settings = Settings(debounce_ms=0)
    ls.large_document_chars = sys.maxsize  # analysed in this process, where it can be held
    release = threading.Event()
    analysed: list[int] = []

    def hold(text: str, previous: AnalysisResult | None) -> None:
        analysed.append(text.count("#"))
        release.wait()

    text = large_workflow(2)
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    release.set()
    assert await ls.fresh_snapshot(URI, model=False) is not None
    release.clear()
    watch_analyses(monkeypatch, session, hold)
    change(ls, 2, text + "#")
    while not analysed:
        await asyncio.sleep(0.001)
    ls.save_document(URI)
    release.set()
    snapshot = await ls.fresh_snapshot(URI, model=False)
    assert snapshot is not None and snapshot.version == 2
    assert analysed == [1]
    ls.analysis_process.close()
    ls.thread_pool.shutdown()


# A document's next text goes to the analysis process as an edit of the text it was sent before
# (`wire.Edit`); each test asks the worker what it analysed.


def test_the_worker_takes_an_edit_only_of_the_text_it_holds() -> None:
    texts = main.Texts()
    edit = wire.Edit
    assert texts.received(1, "abc", "/a") == "abc"
    assert texts.received(2, edit(1, 1, 2, "XY"), "/a") == "aXYc"
    assert texts.received(3, edit(1, 0, 0, "-"), "/a") is None  # 1 is not the text it holds
    assert texts.received(4, edit(2, 4, 4, "!"), "/a") == "aXYc!"
    assert texts.received(5, edit(4, 0, 0, ""), None) is None  # no document to hold it for
    assert texts.received(6, "whole", None) == "whole"
    for number, other in enumerate(range(spawn.KEPT_ANALYSES), start=7):
        texts.received(number, "other", f"/other-{other}")
    assert texts.received(20, edit(4, 0, 0, ""), "/a") is None  # forgotten: least recent


def watch_sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, object]]:
    """(job number, text or edit) of each job sent to an analysis process, as sent."""
    sent: list[tuple[int, object]] = []
    real_send = client._Worker.send

    def send(worker: client._Worker, message: tuple[object, ...]) -> None:
        if message[0] == "analyze":
            sent.append((message[1], message[2]))  # type: ignore[arg-type]
        real_send(worker, message)

    monkeypatch.setattr(client._Worker, "send", send)
    return sent


async def analysed(process: client.AnalysisProcess, text: str) -> str:
    answer = await process.ask(text, "/tmp/edits.relavium.yaml", lambda: False, analysed_text)
    value: str = answer.value
    return value


async def test_a_document_s_next_text_is_sent_as_an_edit_and_analysed_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent = watch_sent(monkeypatch)
    ls = initialized_server()
    text = large_workflow(40)
    typo = text.replace("type: transform", "type: transfrom", 1)
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    assert await ls.fresh_snapshot(URI, model=False) is not None
    change(ls, 2, typo)
    snapshot = await ls.fresh_snapshot(URI, model=False)
    assert snapshot is not None and snapshot.version == 2
    assert "invalid-value" in {d.rule for d in snapshot.result.diagnostics}
    at = typo.index("transfrom")  # "transform": "or" became "ro"
    assert sent == [(sent[0][0], text), (sent[1][0], wire.Edit(sent[0][0], at + 6, at + 8,
                                                                     "ro"))]
    answered = await ls.ask_analysis_process(URI, analysed_text)
    assert answered is not None and answered[1] == typo
    ls.analysis_process.close()
    ls.thread_pool.shutdown()


async def test_texts_sent_smallest_first_are_edits_of_each_other_in_the_order_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Queued jobs go smallest text first, so a document's older, longer text can follow a
    newer one (an ask about a version beside the diagnosis of the next)."""
    sent = watch_sent(monkeypatch)
    process = client.AnalysisProcess()
    text = large_workflow(3)
    texts = [text + "#" * 30, text + "# shorter", text + "#" * 20, text]
    answers = await asyncio.gather(*(analysed(process, each) for each in texts))
    assert answers == texts
    assert [number for number, _ in sent] == [0, 3, 1, 2]  # the first runs at once
    assert isinstance(sent[0][1], str)
    assert all(isinstance(edit, wire.Edit) and edit.base == base
               for (base, _), (_, edit) in itertools.pairwise(sent))
    process.close()


async def test_a_worker_without_the_edited_text_is_sent_the_whole_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent = watch_sent(monkeypatch)
    process = client.AnalysisProcess()
    text = large_workflow(3)
    assert await analysed(process, text) == text
    worker = process._worker
    assert worker is not None
    # as if the worker had forgotten the document, or the text had been sent to another worker
    path, (number, _) = next(iter(worker._sent.items()))
    worker._sent[path] = (number + 100, text)
    assert await analysed(process, text + "#") == text + "#"
    assert sent[1] == (1, wire.Edit(number + 100, len(text), len(text), "#"))
    assert sent[2] == (1, text + "#")  # the same job again, whole
    assert await analysed(process, text + "##") == text + "##"  # and edits again after it
    assert isinstance(sent[3][1], wire.Edit) and sent[3][1].base == 1
    # a new worker has no text: the first it is sent is whole
    os.kill(worker.process.pid, signal.SIGKILL)
    with pytest.raises(client.WorkerLost):
        await analysed(process, text + "###")
    assert await analysed(process, text) == text
    assert sent[-1][1] == text and process.pid != worker.process.pid
    process.close()


async def test_a_stopped_job_s_text_is_what_the_next_is_an_edit_of(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(client, "STOP_GRACE_SECONDS", 60.0)  # it stops at a checkpoint
    sent = watch_sent(monkeypatch)
    process = client.AnalysisProcess()
    text = large_workflow(300)  # 3,000 nodes: a second or so
    superseded = [False]
    first = process.submit(text, "/tmp/edits.relavium.yaml", lambda: superseded[0])
    while not sent:
        await asyncio.sleep(0.001)
    await asyncio.sleep(0.1)  # inside the analysis
    superseded[0] = True
    process.cancel_superseded()
    with pytest.raises(AnalysisStopped):
        await first
    assert await analysed(process, text + "#") == text + "#"
    assert sent[1] == (1, wire.Edit(0, len(text), len(text), "#"))
    assert process.forced_stops == 0
    process.close()


async def test_a_process_started_before_the_server_loaded_is_the_first_worker() -> None:
    started = start_analysis_process()
    process = client.AnalysisProcess()
    process.adopt(started)
    text = large_workflow(3)
    assert await analysed(process, text) == text
    assert process.pid == started.process.pid
    process.close()
    assert started.process.poll() is not None
    unused = start_analysis_process()  # no large document came: closing ends it too
    process.adopt(unused)
    process.close()
    assert unused.process.poll() is not None


async def test_an_edit_s_previous_analysis_is_freed_once_the_new_one_is_published() -> None:
    """Not before (freeing it is not part of the edit's round trip), and not when the next
    analysis starts: its thread held it until then, and freed it in that analysis's time."""
    ls = initialized_server()
    ls.large_document_chars = sys.maxsize  # analysed in this process
    text = large_workflow(2)
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    first = await ls.fresh_snapshot(URI, model=False)
    assert first is not None and first.is_good
    previous = weakref.ref(first.result)
    del first
    heard: list[bool] = []
    ls.on_analysis(lambda snapshot: heard.append(previous() is not None))
    change(ls, 2, text + "#")
    second = await ls.fresh_snapshot(URI, model=False)
    assert second is not None and second.version == 2
    assert heard == [True]
    for _ in range(500):  # the analysis thread lets go of its job just after handing it over
        if previous() is None:
            break
        await asyncio.sleep(0.01)
    assert previous() is None
    ls.analysis_process.close()
    ls.thread_pool.shutdown()


def _calls_into(folder: str, action: Callable[[], object]) -> int:
    """Python function calls made in files under `folder` while `action` runs."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call" and frame.f_code.co_filename.startswith(folder):
            count += 1

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return count


async def test_opening_a_document_has_the_keystroke_structure_hooks_made() -> None:
    """cattrs makes a message type's structure hook on first use (code generation, ~3 ms): the
    session's first keystroke paid it. Opening a document makes them while its analysis runs."""
    import cattrs.gen

    generator = os.path.dirname(cattrs.gen.__file__)
    keystroke = {
        "jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_DID_CHANGE,
        "params": {"textDocument": {"uri": URI, "version": 7}, "contentChanges": [
            {"range": {"start": {"line": 3, "character": 1}, "end": {"line": 3, "character": 4}},
             "text": "é"}]},
    }
    unopened = initialized_server()
    assert _calls_into(generator, lambda: unopened.protocol.structure_message(keystroke)) > 0
    ls = initialized_server()
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1,
                                            text=large_workflow(1)))
    await asyncio.sleep(0)  # the event loop's next turn
    assert _calls_into(generator, lambda: ls.protocol.structure_message(keystroke)) == 0
    ls.close_document(URI)
