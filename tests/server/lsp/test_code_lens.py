"""The "Run with sample scope" lens: one above each expression field, runnable as given, and
still there while the YAML is half-typed; and the "Dry-run workflow" lens above `nodes:`."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
EXPRESSION_KEYS = {
    "route": "expression:",
    "history": "transform:",
    "sentiment": "transform:",
    "combine": "merge_fn:",
    "topic": "transform:",
}


async def lenses(
    client: RelaviumClient, uri: str, command: str = "relavium.runWithSampleScope"
) -> list[types.CodeLens]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [lens for lens in found or [] if lens.command and lens.command.command == command]


def key_line(node: str) -> int:
    lines = EXAMPLE.splitlines()
    start = lines.index(f"    - id: {node}")
    return next(
        n for n in range(start, len(lines)) if lines[n].strip().startswith(EXPRESSION_KEYS[node])
    )


async def test_a_lens_above_each_expression_field(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("lens.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)
    found = await lenses(client, uri)
    assert [list(lens.command.arguments or []) for lens in found if lens.command] == [
        [{"uri": uri, "node": node}] for node in EXPRESSION_KEYS
    ]
    for lens, node in zip(found, EXPRESSION_KEYS, strict=True):
        assert lens.range.start.line == key_line(node)
        assert lens.command is not None
        assert lens.command.command == "relavium.runWithSampleScope"
    # the lens runs as given
    route = found[0].command
    assert route is not None
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=route.command, arguments=route.arguments)
    )
    assert result["ok"] is True


async def test_lenses_stay_while_the_yaml_is_half_typed(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("lens-broken.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)
    client.replace_all(uri, EXAMPLE.replace("  edges:\n", "  edges: [\n"))
    assert [d.code for d in await client.diagnostics_for(uri)] == ["yaml-syntax"]
    assert len(await lenses(client, uri)) == len(EXPRESSION_KEYS)


async def test_lenses_follow_a_half_typed_edit(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("lens-shifted.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)
    # a new, unfinished line between route and the other expression nodes
    at = types.Position(line=EXAMPLE.splitlines().index("    - id: escalate") + 1, character=0)
    client.change(
        uri,
        types.TextDocumentContentChangePartial(
            range=types.Range(start=at, end=at), text="      label: [\n"
        ),
    )
    assert [d.code for d in await client.diagnostics_for(uri)] == ["yaml-syntax"]
    found = await lenses(client, uri)
    shift = {"route": 0, "history": 1, "sentiment": 1, "combine": 1, "topic": 1}
    assert [lens.range.start.line for lens in found] == [
        key_line(node) + shift[node] for node in EXPRESSION_KEYS
    ]


async def test_a_dry_run_lens_above_nodes(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("lens-dry-run.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)
    [lens] = await lenses(client, uri, "relavium.dryRunWorkflow")
    assert lens.range.start.line == EXAMPLE.splitlines().index("  nodes:")
    assert lens.command is not None and lens.command.title == "▶ Dry-run workflow"
    assert list(lens.command.arguments or []) == [{"uri": uri}]
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
    )
    assert result["ok"] is True and len(result["nodes"]) == 11
