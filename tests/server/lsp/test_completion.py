"""Completion end to end: expression, template and YAML-value contexts, half-typed YAML, UTF-16."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier, position, spanned

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")


async def complete(client: RelaviumClient, uri: str, text: str, needle: str,
                   nth: int = 0) -> list[types.CompletionItem]:
    """Completion with the cursor just after `needle`, items in the server's sort order."""
    found = await client.text_document_completion_async(
        types.CompletionParams(text_document=identifier(uri),
                               position=position(client, text, needle, nth, at=len(needle)))
    )
    assert isinstance(found, types.CompletionList)
    return sorted(found.items, key=lambda item: item.sort_text or "")


def labels(items: list[types.CompletionItem]) -> list[str]:
    return [item.label for item in items]


def edit_of(item: types.CompletionItem) -> types.TextEdit:
    assert isinstance(item.text_edit, types.TextEdit)
    return item.text_edit


async def typed(client: RelaviumClient, workspace: Workspace, name: str, old: str,
                new: str) -> tuple[str, str]:
    """Open the example, then type `new` in place of `old` as an edit (the way editors do)."""
    uri = workspace.open(name, EXAMPLE)
    await client.diagnostics_for(uri)
    text = EXAMPLE.replace(old, new, 1)
    client.replace_all(uri, text)
    return uri, text


async def test_output_reads_offer_ancestors_only(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri, text = await typed(client, workspace, "complete-bracket.relavium.yaml",
                            'run.outputs["classify"].severity', 'run.outputs["')
    items = await complete(client, uri, text, 'run.outputs["')
    assert labels(items) == ["start", "classify"]
    classify = items[1]
    assert classify.detail == "agent · ancestor"
    assert classify.kind == types.CompletionItemKind.Reference
    assert isinstance(classify.documentation, types.MarkupContent)
    assert "agent `classifier`" in classify.documentation.value
    assert edit_of(classify).new_text == 'classify"]'


async def test_a_kebab_ancestor_after_a_dot_becomes_a_bracket_read(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri, text = await typed(
        client, workspace, "complete-dot.relavium.yaml",
        "    - { id: done, type: output,",
        "    - id: polish\n      type: transform\n      transform: run.outputs.dr\n"
        "    - { id: done, type: output,",
    )
    text = text.replace("{ from: draft-reply, to: done }",
                        "{ from: draft-reply, to: polish }\n    - { from: polish, to: done }")
    client.replace_all(uri, text)
    items = await complete(client, uri, text, "transform: run.outputs.dr")
    assert "draft-reply" in labels(items)
    assert "polish" not in labels(items) and "done" not in labels(items)
    item = next(item for item in items if item.label == "draft-reply")
    edit = edit_of(item)
    assert spanned(client, text, edit.range) == ".dr"
    assert edit.new_text == '["draft-reply"]'
    assert item.filter_text == ".draft-reply"
    client.apply_text_edits(uri, [edit])
    assert "transform: run.outputs[\"draft-reply\"]\n" in client.text(uri)
    assert [d.code for d in await client.diagnostics_for(uri)
            if d.severity == types.DiagnosticSeverity.Error] == []


async def test_inputs_rank_secrets_last(client: RelaviumClient, workspace: Workspace) -> None:
    uri, text = await typed(client, workspace, "complete-inputs.relavium.yaml",
                            "(inputs.severity_floor ?? 7)", "(inputs.")
    items = await complete(client, uri, text, "(inputs.")
    assert labels(items) == ["ticket_text", "customer_tier", "severity_floor", "crm_token"]
    assert items[-1].detail == "secret input — denied to expressions"
    assert items[0].detail == "string input"


async def test_context_branches_and_math(client: RelaviumClient, workspace: Workspace) -> None:
    uri, text = await typed(client, workspace, "complete-merge.relavium.yaml",
                            "{ team: ctx.team })", "{ team: ctx.")
    items = await complete(client, uri, text, "{ team: ctx.")
    assert labels(items) == ["team", "crm_auth"]
    assert "secret-derived" in (items[1].detail or "")
    client.replace_all(uri, EXAMPLE.replace("{ team: ctx.team })", "{ team: bra"))
    merge_items = await complete(client, uri, client.text(uri), "{ team: bra")
    assert "branches" in labels(merge_items)
    assert {"inputs", "ctx", "run", "Math", "JSON", "parseInt"} <= set(labels(merge_items))
    assert not {"Date", "Promise", "fetch", "setTimeout"} & set(labels(merge_items))
    client.replace_all(uri, EXAMPLE.replace("{ team: ctx.team })", "{ team: Math."))
    math = labels(await complete(client, uri, client.text(uri), "{ team: Math."))
    assert "floor" in math and "PI" in math and "random" not in math


async def test_branches_only_in_merge_fn(client: RelaviumClient, workspace: Workspace) -> None:
    uri, text = await typed(client, workspace, "complete-no-branches.relavium.yaml",
                            'tier: inputs.customer_tier ?? "free"', "tier: br")
    items = labels(await complete(client, uri, text, "tier: br"))
    assert "inputs" in items and "branches" not in items


async def test_yaml_values_while_half_typed(client: RelaviumClient, workspace: Workspace) -> None:
    uri, text = await typed(client, workspace, "complete-half.relavium.yaml",
                            "    - { from: draft-reply, to: done }\n",
                            "    - { from: draft-reply, to: \n")
    assert [d.code for d in await client.diagnostics_for(uri)] == ["yaml-syntax"]
    items = await complete(client, uri, text, "{ from: draft-reply, to: ")
    assert labels(items) == ["start", "classify", "route", "escalate", "enrich", "history",
                             "sentiment", "combine", "draft-reply", "done", "topic"]
    client.replace_all(uri, text.replace("{ from: draft-reply, to: ", "{ from: 'route:"))
    handles = await complete(client, uri, client.text(uri), "{ from: 'route:")
    assert [(i.label, i.detail) for i in handles] == [("urgent", "branch → topic"),
                                                      ("normal", "branch → enrich")]


async def test_enums_and_agents(client: RelaviumClient, workspace: Workspace) -> None:
    uri, text = await typed(client, workspace, "complete-enums.relavium.yaml",
                            "merge_strategy: custom", "merge_strategy: cu")
    items = await complete(client, uri, text, "merge_strategy: cu")
    assert labels(items) == ["concat", "object_merge", "first", "custom"]
    assert spanned(client, text, edit_of(items[0]).range) == "cu"
    client.replace_all(uri, EXAMPLE.replace("type: human_gate", "type: "))
    node_types = labels(
        await complete(client, uri, client.text(uri), "id: escalate\n      type: ")
    )
    assert node_types == ["input", "agent", "human_gate", "condition", "transform", "parallel",
                          "merge", "output"]
    client.replace_all(uri, EXAMPLE.replace("type: secret,", "type: s,"))
    input_types = labels(await complete(client, uri, client.text(uri), "type: s"))
    assert "secret" in input_types and "agent" not in input_types
    client.replace_all(uri, EXAMPLE.replace("agent_ref: writer", "agent_ref: "))
    agents = labels(await complete(client, uri, client.text(uri), "agent_ref: ", nth=1))
    assert agents == ["classifier", "writer"]


async def test_templates(client: RelaviumClient, workspace: Workspace) -> None:
    uri, text = await typed(client, workspace, "complete-template.relavium.yaml",
                            "Ticket: {{ inputs.ticket_text }}", "Ticket: {{ ctx.")
    assert labels(await complete(client, uri, text, "Ticket: {{ ctx.")) == ["team", "crm_auth"]
    client.replace_all(uri, EXAMPLE.replace("Ticket: {{ inputs.ticket_text }}",
                                            'Ticket: {{ run.outputs["'))
    feeders = labels(await complete(client, uri, client.text(uri), 'Ticket: {{ run.outputs["'))
    # anything but draft-reply itself, what runs after it (that would close a cycle) and the
    # condition route (it stores no output: condition-output-read)
    assert feeders == ["start", "classify", "escalate", "enrich", "history", "sentiment",
                       "combine", "topic"]
    client.replace_all(uri, EXAMPLE.replace("value: 'support-eu'", "value: '{{ run.outputs[\""))
    assert await complete(client, uri, client.text(uri), "value: '{{ run.outputs[\"") == []


async def test_utf16_ranges_after_emoji(client: RelaviumClient, workspace: Workspace) -> None:
    uri, text = await typed(
        client, workspace, "complete-emoji.relavium.yaml",
        "transform: '({ topic: run.outputs.classify.topic,",
        "transform: '({ \"😀é\": 1, topic: run.outputs.cla",
    )
    items = await complete(client, uri, text, "topic: run.outputs.cla")
    item = next(item for item in items if item.label == "classify")
    assert spanned(client, text, edit_of(item).range) == "cla"


async def test_nothing_outside_workflows(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("complete-empty.relavium.yaml", EXAMPLE)
    assert await complete(client, uri, EXAMPLE, "# A support") == []
    other = workspace.open("compose.yaml", "services:\n  to: \n")
    assert await complete(client, other, "services:\n  to: \n", "to: ") == []
