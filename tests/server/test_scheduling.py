"""Analysis scheduling inside one server object: what a burst of edits costs.

In process, because the protocol does not show how many analyses run at once; the analysis
itself is the real one, only watched.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from lsprotocol import types

import server.language_server as language_server
from analysis import AnalysisResult
from server.language_server import RelaviumLanguageServer, create_server
from tests.analysis.large_workflow import large_workflow

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
    real_analyze = language_server.analyze

    def watched(text: str, path: str | None = None) -> AnalysisResult:
        with lock:
            running[0] += 1
            overlaps.append(running[0])
        try:
            return real_analyze(text, path)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(language_server, "analyze", watched)
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
    # A superseded analysis cannot be stopped once it runs; starting the next one beside it
    # (one per keystroke) left the CPU-bound threads competing and the answers seconds late.
    assert max(overlaps) == 1, overlaps
    assert len(overlaps) < len(requests)
    ls.thread_pool.shutdown()
