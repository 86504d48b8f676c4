"""`relavium.dryRunWorkflow` end to end over LSP: the answer, the inlay hints, the dimmed and
failed nodes as diagnostics (until the next edit), and the showMessage fallback for clients
without inlay hints."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from analysis.dryrun.bounds import NODE_OUTPUT_BYTES
from tests.analysis.dryrun.test_bounds import LADDER_LEVELS, chain, ladder, ladder_size
from tests.analysis.dryrun.test_workflow_run import HEAD
from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace

pytestmark = pytest.mark.asyncio(loop_scope="module")

COMMAND = "relavium.dryRunWorkflow"
EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
SAMPLES = (EXAMPLES / "ticket-triage.samples.json").read_text(encoding="utf-8")
# non-ASCII before the ids on the same line, so UTF-16 columns differ from code points
WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: wide
  nodes:
    - { label: "é😀", id: start, type: input }
    - { label: "😀😀", id: pick, type: condition, expression: '"b"',
        branches: [{ when: a, target_node: a }], default: b }
    - { label: "ü", id: a, type: transform, transform: '"Ä"' }
    - { label: "ü", id: b, type: transform, transform: '{{ body }}' }
    - { id: tail, type: transform, transform: '1' }
  edges:
    - { from: start, to: pick }
    - { from: b, to: tail }
"""


async def dry_run(client: RelaviumClient, uri: str, **extra: Any) -> dict[str, Any]:
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=COMMAND, arguments=[{"uri": uri, **extra}])
    )
    assert isinstance(result, dict), result
    return result


async def hints(client: RelaviumClient, uri: str) -> list[types.InlayHint]:
    whole = types.Range(start=types.Position(0, 0), end=types.Position(10_000, 0))
    found = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri), range=whole)
    )
    return list(found or [])


async def dry_run_diagnostics(client: RelaviumClient, uri: str) -> list[types.Diagnostic]:
    """The newest diagnostics for the current version, as the client would show them."""
    if client.pull_mode:
        diagnostics = await client.diagnostics_for(uri)
    else:
        version = client.documents[uri].version

        def newest() -> list[types.Diagnostic] | None:
            published = [p for p in client.published.get(uri, []) if p.version == version]
            return list(published[-1].diagnostics) if published else None

        await client.wait_for(newest, "diagnostics")
        diagnostics = newest() or []
    return [d for d in diagnostics if d.code == "dry-run"]


def column(client: RelaviumClient, line: str, text: str) -> int:
    """The column just after `text` in `line`, in the negotiated encoding."""
    prefix = line[: line.index(text) + len(text)]
    if client.encoding == types.PositionEncodingKind.Utf8:
        return len(prefix.encode("utf-8"))
    if client.encoding == types.PositionEncodingKind.Utf16:
        return len(prefix.encode("utf-16-le")) // 2
    return len(prefix)


async def test_the_example_with_its_samples(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("tour.relavium.yaml", EXAMPLE)
    workspace.write("tour.samples.json", SAMPLES)
    await client.diagnostics_for(uri)
    result = await dry_run(client, uri)
    nodes = {entry["id"]: entry for entry in result["nodes"]}
    assert result["ok"] is True and nodes["classify"]["status"] == "pinned"
    assert nodes["combine"]["value"]["mood"] == "upset"
    log = "\n".join(m.message for m in client.log_messages)
    assert "dry run ok" in log and "combine (merge) ran" in log
    if client.profile == "neovim":  # inlay hints
        await client.wait_for(lambda: client.inlay_hint_refreshes > 0, "inlayHint/refresh")
        found = {hint.position.line: hint for hint in await hints(client, uri)}
        lines = EXAMPLE.splitlines()
        combine = lines.index("    - id: combine")
        hint = found[combine]
        assert hint.position.character == len("    - id: combine")
        assert isinstance(hint.label, str) and hint.label.startswith("= {")
        assert isinstance(hint.tooltip, types.MarkupContent)
        assert '"mood": "upset"' in hint.tooltip.value
        assert found[lines.index("    - id: classify")].label.startswith("📌 = ")
    else:  # no inlay hints: the summary is shown
        assert client.messages[-1].message.startswith("dry run ok")
    # hover on a node id shows its whole value, until the next edit
    line = EXAMPLE.splitlines().index("    - id: combine")
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=len("    - id: com")),
    ))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert '"team": "support-eu"' in hover.contents.value and "**dry run**" in hover.contents.value


async def test_dimmed_and_failed_nodes_until_the_next_edit(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("wide.relavium.yaml", WORKFLOW)
    await client.diagnostics_for(uri)
    result = await dry_run(client, uri)
    assert result["ok"] is False
    diagnostics = await dry_run_diagnostics(client, uri)
    lines = WORKFLOW.splitlines()
    by_node = {d.data["node"]: d for d in diagnostics}
    skipped = by_node["a"]
    assert skipped.severity == types.DiagnosticSeverity.Hint
    assert list(skipped.tags or []) == [types.DiagnosticTag.Unnecessary]
    assert skipped.message == 'dry run: `a` skipped: pick chose "b"'
    failed = by_node["b"]
    assert failed.severity == types.DiagnosticSeverity.Error
    b_line = lines.index('    - { label: "ü", id: b, type: transform, transform: \'{{ body }}\' }')
    assert failed.range.start.line == b_line
    # the author's own error, on the token the parser stopped at
    assert failed.range.start.character == column(client, lines[b_line], "transform: '{")
    assert failed.message == "dry run: `b` failed: SyntaxError: invalid property name"
    assert by_node["tail"].message == 'dry run: `tail` skipped: upstream "b" failed'
    if client.profile == "neovim":
        found = {hint.position.line: hint for hint in await hints(client, uri)}
        start_line = lines.index('    - { label: "é😀", id: start, type: input }')
        expected = column(client, lines[start_line], "id: start")
        assert found[start_line].position.character == expected
        pick = found[5]
        assert pick.label == '→ "b" chose "b"'
        a_hint = found[7]
        assert a_hint.label == "(skipped)"
    # the next edit clears them
    client.replace_all(uri, WORKFLOW.replace("'1'", "'2'"))
    assert await dry_run_diagnostics(client, uri) == []
    assert await hints(client, uri) == []


async def test_a_secret_never_shows(client: RelaviumClient, workspace: Workspace) -> None:
    text = EXAMPLE
    uri = workspace.open("secret.relavium.yaml", text)
    workspace.write(
        "secret.samples.json", json.dumps({"inputs": {"crm_token": "s3cr3t-never-shown"}})
    )
    result = await dry_run(client, uri)
    said = json.dumps(result) + json.dumps([m.message for m in client.log_messages])
    assert "s3cr3t-never-shown" not in said


async def test_a_run_whose_context_cannot_be_resolved_fails_before_any_node(
    client: RelaviumClient, workspace: Workspace
) -> None:
    # the example's context reads `crm_token`, which these samples omit: the engine resolves the
    # context when the run starts and fails the run, validation, before any node (engine.ts
    # #resolveContextOrFail, interpolation/resolve.ts resolveContext; HodeTech/Relavium 839f2bd)
    uri = workspace.open("no-token.relavium.yaml", EXAMPLE)
    samples = json.loads(SAMPLES)
    del samples["inputs"]["crm_token"]
    workspace.write("no-token.samples.json", json.dumps(samples))
    result = await dry_run(client, uri)
    assert result["ok"] is False and result["error"]["code"] == "validation"
    assert result["error"]["message"].startswith("context `crm_auth`: `{{ inputs.crm_token }}`")
    assert {entry["status"] for entry in result["nodes"]} == {"not-run"}
    log = "\n".join(m.message for m in client.log_messages)
    assert "dry run failed: context `crm_auth`" in log


async def test_runs_that_cannot_start_say_why(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("bad-samples.relavium.yaml", EXAMPLE)
    workspace.write("bad-samples.samples.json", "{")
    result = await dry_run(client, uri)
    assert result["ok"] is False and "invalid JSON" in result["error"]["message"]
    assert client.messages[-1].type == types.MessageType.Error
    assert (await dry_run(client, uri, scope=3))["error"]["code"] == "invalid_request"


async def test_a_cancelled_dry_run_stops(client: RelaviumClient, workspace: Workspace) -> None:
    text = WORKFLOW.replace("'\"Ä\"'", "'(() => { while (true) {} })()'").replace(
        "expression: '\"b\"'", "expression: '\"a\"'"
    )
    uri = workspace.open("hang.relavium.yaml", text)
    await client.diagnostics_for(uri)
    logged = len(client.log_messages)
    request = asyncio.ensure_future(
        client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command=COMMAND, arguments=[{"uri": uri}]),
            msg_id="cancel-dry-run",
        )
    )
    await asyncio.sleep(0.3)
    client.cancel_request(types.CancelParams(id="cancel-dry-run"))
    with pytest.raises(JsonRpcRequestCancelled):
        await request
    # the server keeps answering, and the run never reports: it stopped with the hung node
    assert await hints(client, uri) == []
    await asyncio.sleep(2.0)  # past the sandbox's deadline for the hung node
    assert not any("dry run" in m.message for m in client.log_messages[logged:])


DETAIL = """\
schema_version: '1.0'
workflow:
  id: detail
  nodes:
    - { id: start, type: input }
    - id: check-amount
      type: transform
      transform: |
        ["é😀", 2].map(x => null.risk)
  edges:
    - { from: start, to: check-amount }
"""


async def test_a_failure_is_marked_on_the_failing_token_with_the_authors_error(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("detail.relavium.yaml", DETAIL)
    await client.diagnostics_for(uri)
    result = await dry_run(client, uri)
    [failed] = [node for node in result["nodes"] if node["status"] == "failed"]
    assert failed["error"]["detail"]["class"] == "TypeError"
    [diagnostic] = [d for d in await dry_run_diagnostics(client, uri) if d.severity == 1]
    line = DETAIL.splitlines()[8]
    assert diagnostic.range.start.line == 8
    assert diagnostic.range.start.character == column(client, line, "null.")
    assert diagnostic.range.end.character == column(client, line, "null.risk")
    assert diagnostic.message == (
        "dry run: `check-amount` failed: TypeError: cannot read property 'risk' of null"
    )
    # the per-node run says the same, and its answer places the error in the document
    single = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="relavium.runWithSampleScope", arguments=[{"uri": uri, "node": "check-amount"}]
    ))
    assert single["error"]["detail"]["range"]["start"]["line"] == 8
    assert client.messages[-1].message == (
        "check-amount failed: TypeError: cannot read property 'risk' of null (runtime)"
    )
    log = "\n".join(m.message for m in client.log_messages)
    assert "detail.relavium.yaml:9:" in log and "TypeError" in log


async def test_a_value_ladder_fails_its_node_and_hover_is_answered_meanwhile(
    client: RelaviumClient, workspace: Workspace
) -> None:
    # 40 levels of concat merges, 2^40 leaves through shared references: the engine's 256 KiB
    # bound fails the first level past it (size-bounds.ts 02eeb5f2), and the event loop,
    # which writes out none of the values, answers hover while the run is under way
    text = HEAD + ladder(LADDER_LEVELS)
    uri = workspace.open("ladder.relavium.yaml", text)
    await client.diagnostics_for(uri)
    request = asyncio.ensure_future(dry_run(client, uri))
    line = text.splitlines().index("    - { id: seed, type: transform, transform: '\"x\"' }")
    position = types.Position(line=line, character=len("    - { id: se"))
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position,
    )), timeout=10)
    assert hover is not None
    result = await asyncio.wait_for(request, timeout=60)
    level = next(level for level in range(LADDER_LEVELS) if ladder_size(level) > NODE_OUTPUT_BYTES)
    failed = [entry for entry in result["nodes"] if entry["status"] == "failed"]
    assert [(entry["id"], entry["error"]["code"]) for entry in failed] == [
        (f"m{level}", "validation")
    ]
    after = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position,
    ))
    assert after is not None and isinstance(after.contents, types.MarkupContent)
    assert '**dry run** · its output:\n\n```json\n"x"' in after.contents.value


async def test_a_value_nested_400_deep_is_answered(
    client: RelaviumClient, workspace: Workspace
) -> None:
    # pygls' own serialiser stops near 330 levels; the answer is written in the run's thread
    uri = workspace.open("chain.relavium.yaml", HEAD + chain(400))
    await client.diagnostics_for(uri)
    result = await dry_run(client, uri)
    value = next(entry for entry in result["nodes"] if entry["id"] == "out")["value"]
    depth = 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    assert (result["ok"], depth, value) == (True, 400, {})
