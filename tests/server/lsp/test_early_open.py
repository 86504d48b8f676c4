"""A large document opened while the server loads is analysed in the analysis process at once
(`server.lsp.serve.warm_large_documents`), not once the server has loaded: the frames read before
the server takes them over are shown to `serve` (`FramePump`), a `didOpen` among them is
recognised without the server (`early_open`), the analysis process keeps that analysis
(`("warm", text, path)`) and the server's first job about the document finds it."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from analysis.checks.analyze import AnalysisResult, analyze
from server.lsp.boot.early_open import opened_document
from server.lsp.boot.transport import Dropped, FramePump, FrameReader
from server.lsp.serve import warm_large_documents
from server.lsp.worker import client, main
from server.lsp.worker.spawn import KEPT_ANALYSES, LARGE_DOCUMENT_CHARS, start_analysis_process
from tests.analysis.large_workflow import large_workflow
from tests.server.lsp.test_scheduling import watch_analyses
from tests.server.lsp.test_serve_cli import RawSession
from tests.server.questions import analysed_text

LARGE = large_workflow(40).replace("type: transform", "type: transfrom", 1)


def body(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode()


def did_open(uri: str, text: str) -> bytes:
    return body({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "yaml", "version": 1, "text": text}}})


def test_a_did_open_is_recognised_without_the_server() -> None:
    assert opened_document(did_open("file:///w/a.relavium.yaml", "x: Ä\n")) == (
        "file:///w/a.relavium.yaml", "x: Ä\n")


@pytest.mark.parametrize("frame_body", [
    body({"method": "initialized", "params": {}}),
    body({"id": 3, "method": "textDocument/didOpen", "params": {}}),  # a request: not LSP's
    body({"method": "textDocument/didOpen", "params": {"textDocument": {"uri": 1, "text": ""}}}),
    body({"method": "textDocument/didOpen", "params": None}),
    body({"method": "textDocument/didClose", "params": {"note": "textDocument/didOpen"}}),
    b'{"method": "textDocument/didOpen", ',  # not JSON
    b'\xff"textDocument/didOpen"',  # not UTF-8
    b'["textDocument/didOpen"]',
])
def test_anything_else_is_not_an_opened_document(frame_body: bytes) -> None:
    assert opened_document(frame_body) is None


def _framed(payload: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(payload) + payload


def test_frames_read_before_the_server_takes_them_are_shown_early_and_kept_in_order() -> None:
    read_end, write_end = os.pipe()
    incoming = os.fdopen(write_end, "wb", buffering=0)
    seen: list[bytes] = []
    shown = threading.Event()

    def early(frame_body: bytes) -> None:
        seen.append(frame_body)
        if len(seen) == 2:
            shown.set()

    pump = FramePump(FrameReader(os.fdopen(read_end, "rb")), b"first")
    pump.start(early)
    incoming.write(_framed(b"one") + b"Content-Length: x\r\n\r\n" + _framed(b"two"))
    assert shown.wait(10)

    async def served() -> list[bytes | Dropped | None]:
        frames = pump.attach(asyncio.get_running_loop())
        incoming.write(_framed(b"three"))
        incoming.close()
        return [await frames.get() for _ in range(6)]

    out = asyncio.run(served())
    assert out[:2] == [b"first", b"one"] and isinstance(out[2], Dropped)
    assert out[3:] == [b"two", b"three", None]
    assert seen == [b"one", b"two"]  # not the first (read before), nor one read after attach


def test_a_failing_early_look_loses_no_frame() -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "wb") as incoming:
        incoming.write(_framed(b"one") + _framed(b"two"))
    looked = threading.Event()

    def early(frame_body: bytes) -> None:
        looked.set()
        raise RuntimeError("a bug")

    pump = FramePump(FrameReader(os.fdopen(read_end, "rb")))
    pump.start(early)
    assert looked.wait(10)

    async def served() -> list[bytes | Dropped | None]:
        frames = pump.attach(asyncio.get_running_loop())
        return [await frames.get() for _ in range(3)]

    assert asyncio.run(served()) == [b"one", b"two", None]


class SentToTheProcess:
    """Records what `warm_large_documents` asks the analysis process to analyse."""

    def __init__(self) -> None:
        self.warmed: list[tuple[str, str]] = []

    def warm(self, text: str, path: str) -> None:
        self.warmed.append((text, path))


def test_only_a_large_relavium_document_is_sent_ahead(tmp_path: Path) -> None:
    process = SentToTheProcess()
    early = warm_large_documents(process)  # type: ignore[arg-type]
    workflow = tmp_path / "big flow.relavium.yaml"
    small = "schema_version: '1.0'\n"
    assert len(LARGE) >= LARGE_DOCUMENT_CHARS > len(small)
    for uri, text in [(workflow.as_uri(), small), ((tmp_path / "notes.yaml").as_uri(), LARGE),
                      ((tmp_path / "big.md").as_uri(), LARGE)]:
        early(did_open(uri, text))
    early(body({"method": "initialized", "params": {}}))
    assert process.warmed == []
    early(did_open(workflow.as_uri(), LARGE))
    agent = tmp_path / ".relavium" / "agents" / "a.yaml"
    early(did_open(agent.as_uri(), LARGE))
    # the paths the server's own jobs give (`uri_to_path`): the worker keeps analyses by path
    assert process.warmed == [(LARGE, str(workflow)), (LARGE, str(agent))]
    others = [tmp_path / f"{number}.relavium.yaml" for number in range(KEPT_ANALYSES)]
    for other in others:
        early(did_open(other.as_uri(), LARGE))
    # no more than it keeps: it would forget the first ones again
    assert [path for _, path in process.warmed[2:]] == [str(o) for o in others[:KEPT_ANALYSES - 2]]


def test_the_analysis_process_answers_the_first_job_from_the_warmed_analysis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, AnalysisResult | None]] = []
    watch_analyses(monkeypatch, main, lambda text, previous: calls.append((text, previous)))
    kept = main.KeptAnalyses()
    path = "/tmp/warm.relavium.yaml"
    main.warm(kept, LARGE, path)
    answer = main.answer_job(kept, 1, LARGE, path, None, 100, lambda: False)
    assert calls == [(LARGE, None)]  # the warm analysis, and no other
    assert answer[:2] == (1, "done")
    assert answer[2].result.diagnostics == analyze(LARGE, path).diagnostics
    edited = LARGE + "#\n"  # the user typed before the server loaded: built on the warm one
    main.answer_job(kept, 2, edited, path, None, 100, lambda: False)
    assert calls[1][0] == edited and calls[1][1] is not None


async def test_a_warmed_process_answers_the_server_s_jobs_only() -> None:
    """A warm message has no answer: the server's first job gets its own."""
    started = start_analysis_process()
    path = "/tmp/warm.relavium.yaml"
    started.warm(LARGE, path)
    process = client.AnalysisProcess()
    process.adopt(started)
    diagnosis = await process.submit(LARGE, path, lambda: False)
    assert diagnosis.result.diagnostics == analyze(LARGE, path).diagnostics
    answer = await process.ask(LARGE, path, lambda: False, analysed_text)
    assert answer.value == LARGE
    process.close()
    assert started.process.poll() is not None


def test_a_large_document_opened_at_once_gets_its_diagnostics(tmp_path: Path) -> None:
    """Over stdio, `didOpen` right after `initialize` is answered: the server is still loading
    (most of a second), so the analysis process gets the document from `serve`."""
    session = RawSession({})
    try:
        path = tmp_path / "large.relavium.yaml"
        uri = session.open(path, LARGE)
        while (message := session.receive()).get("method") != "textDocument/publishDiagnostics" \
                or message["params"]["uri"] != uri:
            pass
        codes = [d["code"] for d in message["params"]["diagnostics"]]
        assert codes == ["invalid-value"]
        line = LARGE[: LARGE.index("transfrom")].count("\n")
        assert message["params"]["diagnostics"][0]["range"]["start"]["line"] == line
    finally:
        session.close()
