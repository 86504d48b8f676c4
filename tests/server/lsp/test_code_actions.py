"""Quick fixes end to end: offered for the diagnostic, applied, and the file re-checked."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")


async def only(client: RelaviumClient, uri: str, rule: str) -> types.Diagnostic:
    matching = [d for d in await client.diagnostics_for(uri) if d.code == rule]
    assert len(matching) == 1, matching
    return matching[0]


def titled(actions: list[types.CodeAction], title: str) -> types.CodeAction:
    found = [action for action in actions if action.title == title]
    assert found, [action.title for action in actions]
    return found[0]


async def test_suppress_on_the_line(client: RelaviumClient, workspace: Workspace) -> None:
    text = EXAMPLE.replace(
        "type: string, required: true,", "type: string, bogus: 1, required: true,"
    )
    uri = workspace.open("suppress-line.relavium.yaml", text)
    diagnostic = await only(client, uri, "unknown-key")
    action = titled(await client.quick_fixes(uri, diagnostic), "Ignore unknown-key on this line")
    assert action.kind == types.CodeActionKind.QuickFix
    client.apply_action(uri, action)
    assert (
        "bogus: 1, required: true, description: The customer's message }"
        "  # relavium-lsp: ignore[unknown-key]"
        in client.text(uri)
    )
    assert [d for d in await client.diagnostics_for(uri) if d.code == "unknown-key"] == []


async def test_suppress_for_the_node(client: RelaviumClient, workspace: Workspace) -> None:
    text = EXAMPLE.replace(
        "      agent_ref: classifier\n", "      agent_ref: classifier\n      colour: blue\n"
    )
    uri = workspace.open("suppress-node.relavium.yaml", text)
    diagnostic = await only(client, uri, "unknown-key")
    action = titled(
        await client.quick_fixes(uri, diagnostic), "Ignore unknown-key for node classify"
    )
    client.apply_action(uri, action)
    assert "    # relavium-lsp: ignore[unknown-key]\n    - id: classify\n" in client.text(uri)
    assert [d for d in await client.diagnostics_for(uri) if d.code == "unknown-key"] == []


async def test_an_existing_suppression_comment_is_extended(
    client: RelaviumClient, workspace: Workspace
) -> None:
    text = EXAMPLE.replace(
        "    - { id: start, type: input, label: Ticket received }",
        "    - { id: start, type: input, label: Ticket received, tint: red }"
        "  # relavium-lsp: ignore[cycle]",
    )
    uri = workspace.open("suppress-extend.relavium.yaml", text)
    diagnostic = await only(client, uri, "unknown-key")
    action = titled(await client.quick_fixes(uri, diagnostic), "Ignore unknown-key on this line")
    client.apply_action(uri, action)
    assert "# relavium-lsp: ignore[cycle, unknown-key]" in client.text(uri)
    assert [d for d in await client.diagnostics_for(uri) if d.code == "unknown-key"] == []


@pytest.mark.parametrize("reserved", ["jmespath", "jsonlogic", "python"])
async def test_expression_type_fixes(
    client: RelaviumClient, workspace: Workspace, reserved: str
) -> None:
    rule = "unknown-expression-type" if reserved == "python" else "reserved-expression-type"
    text = EXAMPLE.replace(
        "      expression: |", f"      expression_type: {reserved}\n      expression: |"
    )
    for title, expected in [
        ("Use `expression_type: js`", "      expression_type: js\n      expression: |"),
        (
            "Remove `expression_type` (js is the default)",
            "      type: condition\n      expression: |",
        ),
    ]:
        uri = workspace.open(f"expression-type-{reserved}-{len(expected)}.relavium.yaml", text)
        diagnostic = await only(client, uri, rule)
        client.apply_action(uri, titled(await client.quick_fixes(uri, diagnostic), title))
        assert expected in client.text(uri)
        assert [
            d for d in await client.diagnostics_for(uri) if "expression-type" in str(d.code)
        ] == []


async def test_unknown_node_suggests_the_closest_id(
    client: RelaviumClient, workspace: Workspace
) -> None:
    text = EXAMPLE.replace(
        "{ from: combine, to: draft-reply }", "{ from: combine, to: draft-replly }"
    )
    uri = workspace.open("unknown-node.relavium.yaml", text)
    diagnostic = await only(client, uri, "unknown-node")
    actions = await client.quick_fixes(uri, diagnostic)
    action = titled(actions, "Change `draft-replly` to `draft-reply`")
    assert action.is_preferred
    client.apply_action(uri, action)
    assert client.text(uri) == EXAMPLE
    assert [d for d in await client.diagnostics_for(uri) if d.code == "unknown-node"] == []


async def test_unordered_read_gets_an_edge(client: RelaviumClient, workspace: Workspace) -> None:
    # history reads sentiment, a sibling branch: nothing orders them
    text = EXAMPLE.replace(
        'tier: inputs.customer_tier ?? "free" })\'',
        'tier: inputs.customer_tier ?? "free", mood: run.outputs.sentiment })\'',
    )
    uri = workspace.open("unordered.relavium.yaml", text)
    diagnostic = await only(client, uri, "unordered-output-read")
    action = titled(
        await client.quick_fixes(uri, diagnostic), "Add an edge from sentiment to history"
    )
    client.apply_action(uri, action)
    assert (
        "    - { from: draft-reply, to: done }\n    - { from: sentiment, to: history }"
        in client.text(uri)
    )
    assert [
        d.code for d in await client.diagnostics_for(uri) if d.code == "unordered-output-read"
    ] == []


async def test_no_edge_is_offered_when_it_would_close_a_cycle(
    client: RelaviumClient, workspace: Workspace
) -> None:
    # route reads its own descendant history: an edge history → route would be a cycle
    text = EXAMPLE.replace(
        'run.outputs["classify"].severity >= (inputs.severity_floor ?? 7)',
        'run.outputs["classify"].severity >= (run.outputs.history ?? 7)',
    )
    uri = workspace.open("unordered-cycle.relavium.yaml", text)
    diagnostic = await only(client, uri, "unordered-output-read")
    titles = [action.title for action in await client.quick_fixes(uri, diagnostic)]
    assert not [title for title in titles if title.startswith("Add an edge")], titles
    assert "Ignore unordered-output-read for node route" in titles


@pytest.mark.parametrize(
    ("rule", "written", "title", "meant"),
    [
        pytest.param(
            "unknown-key", "- { id: start, type: input, lable: Ticket received }",
            "Change `lable` to `label`", "- { id: start, type: input, label: Ticket received }",
            id="unknown-key",
        ),
        pytest.param(
            "unknown-agent", "agent_ref: writter", "Change `writter` to `writer`",
            "agent_ref: writer", id="unknown-agent",
        ),
        pytest.param(
            "unknown-template-reference", "Ticket: {{ inputs.ticket_txt }}",
            "Change `ticket_txt` to `ticket_text`", "Ticket: {{ inputs.ticket_text }}",
            id="unknown-template-reference",
        ),
        pytest.param(
            "template-in-expression", "tier: {{ inputs.customer_tier }} ??",
            "Write `inputs.customer_tier` instead of `{{ inputs.customer_tier }}`",
            "tier: inputs.customer_tier ??", id="template-in-expression",
        ),
        pytest.param(
            "invalid-template", "Urgent {{ run.outputs.topic }}",
            'Write `run.outputs["topic"]`', 'Urgent {{ run.outputs["topic"] }}',
            id="invalid-template",
        ),
    ],
)
async def test_a_rules_own_answer_is_the_preferred_fix(
    client: RelaviumClient, workspace: Workspace, rule: str, written: str, title: str, meant: str
) -> None:
    assert meant in EXAMPLE
    uri = workspace.open(f"answer-{rule}.relavium.yaml", EXAMPLE.replace(meant, written))
    diagnostic = await only(client, uri, rule)
    actions = await client.quick_fixes(uri, diagnostic)
    assert actions[0].title == title and actions[0].is_preferred
    assert not [action.title for action in actions[1:] if action.is_preferred]
    client.apply_action(uri, actions[0])
    assert client.text(uri) == EXAMPLE
    assert [d for d in await client.diagnostics_for(uri) if d.code == rule] == []
