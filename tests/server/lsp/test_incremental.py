"""An edit is analysed with the document's previous analysis, so the analysis re-reads only the
YAML the edit touched (issue 12, target 3); what it finds is the same as a fresh analysis."""

from __future__ import annotations

import pytest
from lsprotocol import types

import server.lsp.session as session
from analysis.checks.analyze import analyze
from tests.analysis.large_workflow import large_workflow
from tests.server.lsp.test_scheduling import URI, initialized_server, watch_analyses


async def test_an_edit_is_analysed_with_the_previous_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    given: list[tuple[str, str | None]] = []
    watch_analyses(monkeypatch, session, lambda text, previous: given.append(
        (text, previous.source.text if previous is not None else None)))
    ls = initialized_server()
    text = large_workflow(5)
    ls.open_document(types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    assert await ls.fresh_snapshot(URI) is not None
    at = text.index("agent_ref: writer") + len("agent_ref: writer")
    line = text.count("\n", 0, at)
    column = at - (text.rfind("\n", 0, at) + 1)
    ls.change_document(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(line=line, character=column),
                                      end=types.Position(line=line, character=column)),
                    text="s",
                )
            ],
        )
    )
    snapshot = await ls.fresh_snapshot(URI)
    assert snapshot is not None and snapshot.version == 2
    edited = text[:at] + "s" + text[at:]
    assert given == [(text, None), (edited, text)]
    fresh = analyze(edited, ls.documents[URI].path)
    assert snapshot.result.diagnostics == fresh.diagnostics
    assert [d.rule for d in fresh.diagnostics] == ["unknown-agent"]
    ls.thread_pool.shutdown()
