"""`relavium.runWithSampleScope {"uri", "position"}`: the server finds the node under the cursor
itself, in the negotiated position encoding, so an editor sends where the cursor is."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace

pytestmark = pytest.mark.asyncio(loop_scope="module")

RUN = "relavium.runWithSampleScope"
EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
RUNNABLE = ["route", "history", "sentiment", "combine", "topic"]


def client_position(client: RelaviumClient, text: str, offset: int) -> dict[str, int]:
    """The LSP position of a code-point offset, in the client's negotiated encoding."""
    line = text.count("\n", 0, offset)
    before = text[text.rfind("\n", 0, offset) + 1 : offset]
    units = {
        types.PositionEncodingKind.Utf8: len(before.encode("utf-8")),
        types.PositionEncodingKind.Utf16: len(before.encode("utf-16-le")) // 2,
        types.PositionEncodingKind.Utf32: len(before),
    }
    return {"line": line, "character": units[types.PositionEncodingKind(client.encoding)]}


async def run(client: RelaviumClient, argument: dict[str, Any]) -> dict[str, Any]:
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=RUN, arguments=[argument])
    )
    assert isinstance(result, dict), result
    return result


async def run_at(
    client: RelaviumClient, uri: str, text: str, needle: str, **extra: Any
) -> dict[str, Any]:
    position = client_position(client, text, text.index(needle))
    return await run(client, {"uri": uri, "position": position, **extra})


async def test_a_position_runs_the_node_it_is_in_as_its_id_does(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("at-route.relavium.yaml", EXAMPLE)
    by_id = await run(client, {"uri": uri, "node": "route"})
    for needle in ("- id: route", "type: condition", '? "urgent"', "default: enrich"):
        assert await run_at(client, uri, EXAMPLE, needle) == by_id, needle
    assert by_id["ok"] is True and by_id["value"] == "normal"
    assert client.messages[-1].message == 'route → "normal"'


async def test_node_wins_over_position_as_before_position_existed(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("both.relavium.yaml", EXAMPLE)
    result = await run_at(client, uri, EXAMPLE, "merge_fn", node="route")
    assert result["node"] == "route"


async def test_a_saved_file_is_located_in_its_text_on_disk(
    client: RelaviumClient, workspace: Workspace
) -> None:
    workspace.write("saved.relavium.yaml", EXAMPLE)
    result = await run_at(client, workspace.uri("saved.relavium.yaml"), EXAMPLE, "Object.assign")
    assert result["ok"] is True and result["node"] == "combine"


# Ten astral characters before `a`'s expression on the line: read as code points, the UTF-16
# column of its last character lands ten characters on, in node `b`.
FLOW = """\
schema_version: '1.0'
workflow:
  id: wide
  nodes: [{ id: a, type: transform, label: "😀😀😀😀😀😀😀😀😀😀", transform: "'a'" }, \
{ id: b, type: transform, transform: "'b'" }]
  edges: []
"""


async def test_columns_are_counted_in_the_negotiated_encoding(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("wide.relavium.yaml", FLOW)
    if client.profile == "vscode":
        assert client.encoding == types.PositionEncodingKind.Utf16
    result = await run_at(client, uri, FLOW, "a'\" }")
    assert (result["ok"], result["node"], result["value"]) == (True, "a", "a")
    result = await run_at(client, uri, FLOW, "b'\" }")
    assert (result["node"], result["value"]) == ("b", "b")


@pytest.mark.parametrize(
    ("needle", "says"),
    [
        ("schema_version", "line 2, character 1 is in no node"),
        ("- { from: classify", "is in no node"),
        ("agent_ref: classifier", "node `classify` (type agent) at line 34, character 7 has no"),
    ],
)
async def test_a_position_in_no_runnable_node_is_refused_with_the_runnable_ones(
    client: RelaviumClient, workspace: Workspace, needle: str, says: str
) -> None:
    uri = workspace.open("nowhere.relavium.yaml", EXAMPLE)
    result = await run_at(client, uri, EXAMPLE, needle)
    assert result["ok"] is False and result["error"]["code"] == "invalid_request"
    assert says in result["error"]["message"]
    assert result["error"]["message"].endswith(
        "; nodes with an expression: route, history, sentiment, combine, topic"
    )
    assert result["error"]["runnable"] == RUNNABLE
    assert client.messages[-1].type == types.MessageType.Error
    assert client.messages[-1].message == f"Run with sample scope: {result['error']['message']}"


async def test_a_node_without_an_id_cannot_run(
    client: RelaviumClient, workspace: Workspace
) -> None:
    text = FLOW.replace("{ id: b, ", "{ ")
    uri = workspace.open("id-less.relavium.yaml", text)
    result = await run_at(client, uri, text, "'b'")
    assert "the node at line 4, character" in result["error"]["message"]
    assert "has no id" in result["error"]["message"] and result["error"]["runnable"] == ["a"]


async def test_half_typed_yaml_is_located_in_the_last_good_model(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("half-typed.relavium.yaml", EXAMPLE)
    assert (await run_at(client, uri, EXAMPLE, "merge_fn"))["ok"] is True
    broken = EXAMPLE.replace("  edges:\n", "  edges: [\n")
    client.replace_all(uri, broken)
    # located from the last good model; the run itself needs YAML that parses
    result = await run_at(client, uri, broken, "merge_fn")
    assert result["ok"] is False
    assert result["error"]["message"].startswith("nothing to dry-run: YAML syntax error: ")
    assert "runnable" not in result["error"]


@pytest.mark.parametrize(
    "position",
    [None, {"line": 0}, {"line": -1, "character": 0}, {"line": True, "character": 0}, [1, 2]],
)
async def test_a_malformed_position_answers_the_usage(
    client: RelaviumClient, workspace: Workspace, position: Any
) -> None:
    uri = workspace.open("usage.relavium.yaml", EXAMPLE)
    result = await run(client, {"uri": uri, "position": position})
    assert result["ok"] is False and result["error"]["message"].startswith("expected one argument")
    assert '"position": {"line"' in result["error"]["message"]
