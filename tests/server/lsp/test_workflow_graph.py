"""`relavium.workflowGraph` end to end over LSP: the graph JSON (positions in the negotiated
encoding), the text formats, a dry run's statuses with a samples object or file, and the
failures a client gets instead of a crash."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from lsprotocol import types

from tests.analysis.large_workflow import large_workflow
from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.lsp.test_dry_run_workflow import WORKFLOW, column

pytestmark = pytest.mark.asyncio(loop_scope="module")

COMMAND = "relavium.workflowGraph"
SAMPLES = (EXAMPLES / "ticket-triage.samples.json").read_text(encoding="utf-8")
LEAK = (EXAMPLES / "broken" / "ticket-triage-leak.relavium.yaml").read_text(encoding="utf-8")


async def graph(client: RelaviumClient, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=COMMAND, arguments=list(arguments))
    )


async def test_the_graph_json_of_an_open_document(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("wide-graph.relavium.yaml", WORKFLOW)
    answer = await graph(client, {"uri": uri})
    assert answer["version"] == 1 and answer["workflow"] == "wide"
    nodes = {node["id"]: node for node in answer["nodes"]}
    assert list(nodes) == ["start", "pick", "a", "b", "tail"]
    lines = WORKFLOW.splitlines()
    line = lines.index('    - { label: "é😀", id: start, type: input }')
    start = nodes["start"]["idRange"]["start"]
    # the id's column in the client's encoding, after the non-ASCII label
    assert start == {"line": line, "character": column(client, lines[line], "id: ")}
    edges = {(e["source"], e["target"]): e for e in answer["edges"]}
    assert edges[("pick", "a")]["handles"] == ["a"] and edges[("pick", "b")]["label"] == "default"
    assert nodes["a"]["gatedBy"] == ["pick:a"] and "status" not in nodes["a"]


async def test_text_formats_and_a_dry_run_with_a_samples_object(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("leak-graph.relavium.yaml", LEAK)
    mermaid = await graph(client, {"uri": uri, "format": "mermaid"})
    assert mermaid["format"] == "mermaid" and mermaid["text"].startswith("flowchart TD\n")
    html = await graph(client, {"uri": uri, "format": "html"})
    assert html["text"].startswith("<!DOCTYPE html>") and "Content-Security-Policy" in html["text"]
    scope = json.loads(SAMPLES)
    answer = await graph(client, {"uri": uri, "dryRun": True, "scope": scope})
    nodes = {node["id"]: node for node in answer["nodes"]}
    assert nodes["classify"]["status"] == {"state": "pinned",
                                           "value": '{"severity": 6, "topic": "billing"}'}
    # severity 6 < 8: route chose `normal`, yet the leaked gate ran (as the engine runs it)
    assert nodes["route"]["status"]["reason"] == '"normal" chose "enrich"'
    assert nodes["escalate"]["leaked"] is True
    assert nodes["escalate"]["status"]["state"] == "synthesized"
    assert answer["run"] == {"ok": True, "notes": answer["run"]["notes"]}
    assert [leak["node"] for leak in answer["leaks"]] == ["escalate"]
    # the secret input's sample value never reaches the answer
    assert scope["inputs"]["crm_token"] not in json.dumps(answer)


async def test_requests_it_cannot_answer(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("small-graph.relavium.yaml", WORKFLOW)
    for wrong in ({"uri": uri, "format": "svg"}, {"uri": uri, "dryRun": "yes"}, {"format": "json"}):
        answer = await graph(client, wrong)
        assert answer["ok"] is False and answer["error"]["code"] == "invalid_request"
        assert "expected one argument" in answer["error"]["message"]
    answer = await graph(client, {"uri": uri, "dryRun": True, "scope": {"bogus": 1}})
    assert answer["ok"] is False and "unknown key `bogus`" in answer["error"]["message"]
    broken = workspace.open("broken-graph.relavium.yaml", "workflow: [unclosed\n")
    answer = await graph(client, {"uri": broken})
    assert answer["ok"] is False and answer["error"]["message"].startswith("nothing to draw")


async def test_the_500_node_graph_answers_fast(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("large-graph.relavium.yaml", large_workflow(50))
    await client.diagnostics_for(uri)
    started = time.perf_counter()
    answer = await graph(client, {"uri": uri})
    elapsed = time.perf_counter() - started
    assert len(answer["nodes"]) == 501
    print(f"relavium.workflowGraph of 501 nodes: {elapsed * 1000:.0f} ms")
    assert elapsed < 10  # bounded: no dry run, one pass over the graph (≈0.1 s unloaded)
