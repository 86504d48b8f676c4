"""Large documents are diagnosed in the analysis process (server/lsp/worker/), over real LSP:
the diagnostics and the requests served from the model computed on demand, and the worker's
lifetime tied to the server's."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from lsprotocol import types

from server.lsp.worker.spawn import LARGE_DOCUMENT_CHARS
from tests.analysis.large_workflow import large_workflow
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import spanned
from tests.server.lsp.test_semantic_tokens import full
from tests.server.lsp.test_serve_cli import RawSession
from tests.server.lsp.test_symbols import symbols, walk

# 400 nodes, one of them with a misspelt type
LARGE = large_workflow(40).replace("type: transform", "type: transfrom", 1)


def test_the_sample_is_large() -> None:
    assert len(LARGE) >= LARGE_DOCUMENT_CHARS


@pytest.mark.asyncio(loop_scope="module")
async def test_diagnostics_and_requests_on_a_large_document(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("large.relavium.yaml", LARGE)
    diagnostics = await client.diagnostics_for(uri)
    assert [d.code for d in diagnostics] == ["invalid-value"]
    line = LARGE[: LARGE.index("transfrom")].count("\n")
    assert diagnostics[0].range.start.line == line
    # hover needs the model, which the server computes itself on demand
    needle = LARGE.index("id: b7-route") + len("id: ")
    position = types.Position(line=LARGE[:needle].count("\n"),
                              character=needle - LARGE.rfind("\n", 0, needle) - 1)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )
    assert hover is not None and "condition" in str(hover.contents)
    client.replace_all(uri, LARGE.replace("type: transfrom", "type: transform"))
    assert await client.diagnostics_for(uri) == []


async def _what_is_shown(client: RelaviumClient, uri: str) -> list[types.DocumentSymbol]:
    """What an editor showing the document asks for, checked around node `b7-route` in the
    client's current text; the outline."""
    text = client.documents[uri].source
    lines = text.splitlines()
    node_line = lines.index("    - id: b7-route")
    expression_line = node_line + 2
    assert lines[expression_line].startswith("      expression: ")
    identifier = types.TextDocumentIdentifier(uri=uri)
    found = await symbols(client, uri)
    [route] = [symbol for symbol in walk(found) if symbol.name == "b7-route"]
    assert spanned(client, text, route.selection_range) == "b7-route"
    folding = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=identifier))
    assert (node_line, lines.index("      default: b7-fan", node_line)) in {
        (fold.start_line, fold.end_line) for fold in folding or []}
    assert (expression_line, '"high"', "string") in await full(client, uri, text)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=identifier))
    runs_route = [{"uri": uri, "node": "b7-route"}]
    assert expression_line in {
        lens.range.start.line for lens in lenses or []
        if lens.command and list(lens.command.arguments or []) == runs_route}
    return found


@pytest.mark.asyncio(loop_scope="module")
async def test_what_is_shown_of_a_large_document_also_while_its_yaml_is_broken(
    client: RelaviumClient, workspace: Workspace
) -> None:
    """Outline, folds, tokens and lenses come from the analysis process (the model is there);
    while the YAML does not parse, from the last version that did, placed in the live text."""
    uri = workspace.open("shown.relavium.yaml", "# Überblick 🚀 über alles\n" + LARGE)
    found = await _what_is_shown(client, uri)
    assert [symbol.name for symbol in found] == ["inputs", "context", "agents", "nodes", "edges"]
    client.change(uri, types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=1, character=0),
                          end=types.Position(line=1, character=0)),
        text="nodes: [ 🚀\n"))
    assert "yaml-syntax" in {d.code for d in await client.diagnostics_for(uri)}
    broken = await _what_is_shown(client, uri)
    assert [symbol.name for symbol in walk(broken)] == [symbol.name for symbol in walk(found)]
    assert broken[3].range.start.line == found[3].range.start.line + 1


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")  # exited; a zombie only waits for its reaper


def _wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + 20
    while not _gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _session_with_worker(tmp_path: Path) -> tuple[RawSession, int]:
    session = RawSession({})
    session.open(tmp_path / "large.relavium.yaml", LARGE)
    deadline = time.monotonic() + 30
    while not (workers := _children(session.process.pid)):
        assert time.monotonic() < deadline, "no analysis process started"
        time.sleep(0.05)
    [worker] = workers
    return session, worker


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_exit_ends_the_analysis_process(tmp_path: Path) -> None:
    session, worker = _session_with_worker(tmp_path)
    try:
        session.send({"id": 2, "method": "shutdown"})
        session.answer_to(2)
        session.send({"method": "exit"})
        assert session.process.wait(timeout=30) == 0
        assert _wait_gone(worker)
    finally:
        session.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_killed_server_leaves_no_analysis_process(tmp_path: Path) -> None:
    session, worker = _session_with_worker(tmp_path)
    try:
        os.kill(session.process.pid, signal.SIGKILL)
        session.process.wait(timeout=30)
        # its input closed: the worker exits even in the middle of an analysis
        assert _wait_gone(worker)
    finally:
        session.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_analysis_process_starts_with_the_server_and_diagnoses_the_first_large_one(
    tmp_path: Path,
) -> None:
    """`serve` starts it before loading the server, so the two load side by side: a large
    document's first diagnostics waited for the worker to load after the server had."""
    session = RawSession({})
    try:
        deadline = time.monotonic() + 30
        while not (workers := _children(session.process.pid)):  # no document is open yet
            assert time.monotonic() < deadline, "no analysis process started"
            time.sleep(0.05)
        uri = session.open(tmp_path / "large.relavium.yaml", LARGE)
        while not ((message := session.receive()).get("method")
                   == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri):
            pass
        assert [d["code"] for d in message["params"]["diagnostics"]] == ["invalid-value"]
        assert _children(session.process.pid) == workers  # that process diagnosed it
    finally:
        session.close()
