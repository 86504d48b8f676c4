"""Hover end to end: nodes and their place in the graph, declarations, builtins, rule docs."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier, position, spanned

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")


async def hover(client: RelaviumClient, uri: str, text: str, needle: str, at: int = 0,
                nth: int = 0) -> tuple[str, str | None]:
    """The hover's Markdown and the text its range covers (None without a hover)."""
    found = await client.text_document_hover_async(
        types.HoverParams(text_document=identifier(uri),
                          position=position(client, text, needle, nth, at))
    )
    if found is None:
        return "", None
    assert isinstance(found.contents, types.MarkupContent)
    assert found.contents.kind == types.MarkupKind.Markdown
    covered = spanned(client, text, found.range) if found.range is not None else None
    return found.contents.value, covered


async def test_a_read_of_an_ancestor(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("hover-ancestor.relavium.yaml", EXAMPLE)
    text, covered = await hover(client, uri, EXAMPLE, 'run.outputs["classify"]', at=15)
    assert covered == "classify"
    assert text.startswith("**node `classify`** · `agent` · agent `classifier` · outputs "
                           "`severity`, `topic`")
    assert "runs after `start` · before `route`" in text
    assert "✓ an ancestor of `route`" in text


async def test_an_agent_node_shows_the_outputs_of_its_agents_schema(
    client: RelaviumClient, workspace: Workspace
) -> None:
    # The engine holds an agent node to `node.output_schema ?? agent.output_schema`
    # (packages/core/src/engine/agent-runner.ts): the schema moved to the agent still applies.
    schema = ("      output_schema:\n        type: object\n        properties:\n"
              "          severity: { type: number }\n          topic: { type: string }\n")
    assert schema in EXAMPLE
    source = EXAMPLE.replace(schema, "").replace(
        "      system_prompt: You classify support tickets. Answer with JSON.\n",
        "      system_prompt: You classify support tickets. Answer with JSON.\n" + schema)
    assert source.count("output_schema") == 1
    uri = workspace.open("hover-agent-schema.relavium.yaml", source)
    text, _ = await hover(client, uri, source, 'run.outputs["classify"]', at=15)
    assert text.startswith("**node `classify`** · `agent` · agent `classifier` · outputs "
                           "`severity`, `topic`")


async def test_a_read_of_a_node_that_is_not_an_ancestor(
    client: RelaviumClient, workspace: Workspace
) -> None:
    source = EXAMPLE.replace("tier: inputs.customer_tier", "mood: run.outputs.sentiment, "
                             "tier: inputs.customer_tier")
    uri = workspace.open("hover-sibling.relavium.yaml", source)
    text, covered = await hover(client, uri, source, "run.outputs.sentiment", at=14)
    assert covered == "sentiment"
    assert "✗ not an ancestor of `history`" in text
    assert "add an edge from `sentiment` to `history`" in text
    # the diagnostic there explains its rule too
    assert "**unordered-output-read**:" in text
    assert "docs/rules.md#unordered-output-read" in text


async def test_declarations(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("hover-declarations.relavium.yaml", EXAMPLE)
    text, covered = await hover(client, uri, EXAMPLE, "inputs.severity_floor", at=9)
    assert covered == "severity_floor"
    # the declaration, then the read's type (typed hover: tests/server/lsp/test_typed_hover.py)
    assert text == ("**input `severity_floor`** · `number` input · optional\n\n"
                    "`severity_floor: number | undefined` — the declared inputs")
    text, _ = await hover(client, uri, EXAMPLE, "{{ inputs.crm_token }}", at=12)
    assert text.startswith("**input `crm_token`** · `secret` input · optional")
    assert "Secret: expressions never see it" in text
    text, covered = await hover(client, uri, EXAMPLE, "ctx.team })", at=5)
    assert (text, covered) == ("**context `team`** · context value `support-eu`\n\n"
                               "`team: string` — the workflow's context", "team")
    text, _ = await hover(client, uri, EXAMPLE, "{ key: crm_auth", at=8)
    assert "Derived from a secret input" in text
    text, _ = await hover(client, uri, EXAMPLE, "agent_ref: writer", at=12)
    assert text.startswith("**agent `writer`** · agent · model `claude-sonnet-4` · provider "
                           "`anthropic` · You write short")


async def test_a_handle(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("hover-handle.relavium.yaml", EXAMPLE)
    text, covered = await hover(client, uri, EXAMPLE, "'route:normal'", at=9)
    assert covered == "normal"
    assert text == ("**branch `normal` of `route`** → `enrich`: taken when the expression's "
                    'result `=== "normal"`')


async def test_bindings_and_builtins(client: RelaviumClient, workspace: Workspace) -> None:
    source = EXAMPLE.replace(
        "Object.assign({}, ...branches, { team: ctx.team })",
        "Object.assign({}, ...branches, { team: ctx.team, n: Math.floor(1), r: Math.random() })",
    )
    uri = workspace.open("hover-builtins.relavium.yaml", source)
    text, covered = await hover(client, uri, source, "...branches", at=5)
    assert covered == "branches"
    assert text.startswith("**`branches`** · merge_fn only")
    text, covered = await hover(client, uri, source, "Math.floor", at=7)
    assert (text, covered) == ("**`Math.floor`** · Math.floor()", "floor")
    text, _ = await hover(client, uri, source, "Math.random", at=7)
    assert text.startswith("**`Math.random`** · Not available in the expression sandbox")
    text, covered = await hover(client, uri, source, "Object.assign", at=2)
    assert covered == "Object"
    assert text.startswith("**`Object`** · Object constructor")
    text, covered = await hover(client, uri, source, 'run.outputs["classify"]', at=1)
    assert covered == "run"
    assert text.startswith("**`run`** · `run.outputs`")
    # inside a string literal: nothing
    text, covered = await hover(client, uri, source, '? "urgent"', at=4)
    assert (text, covered) == ("", None)


async def test_branches_outside_a_merge(client: RelaviumClient, workspace: Workspace) -> None:
    source = EXAMPLE.replace('tier: inputs.customer_tier ?? "free"', "b: branches[0]")
    uri = workspace.open("hover-branches.relavium.yaml", source)
    text, _ = await hover(client, uri, source, "b: branches", at=4)
    assert "It is null here (this is not a merge_fn): reading from it throws a TypeError." in text
    assert "**branches-outside-merge**:" in text


async def test_unknown_documents_and_empty_places(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("hover-empty.relavium.yaml", EXAMPLE)
    assert await hover(client, uri, EXAMPLE, "tags: [support", at=8) == ("", None)
    # A key shows its schema doc.
    assert await hover(client, uri, EXAMPLE, "max_parallel: 4") == (
        "**`max_parallel`** (integer 1–64) · Cap on concurrent LLM calls (8 when omitted).",
        "max_parallel")
    missing = workspace.uri("not-open.relavium.yaml")
    assert await client.text_document_hover_async(
        types.HoverParams(text_document=identifier(missing),
                          position=types.Position(line=3, character=4))
    ) is None


async def test_emoji_and_accents_before_the_hovered_name(
    client: RelaviumClient, workspace: Workspace
) -> None:
    source = EXAMPLE.replace("message_template: 'Urgent {{", "message_template: 'Ürgent 😀 {{")
    uri = workspace.open("hover-emoji.relavium.yaml", source)
    text, covered = await hover(client, uri, source, 'Ürgent 😀 {{ run.outputs["topic"]',
                                at=27)
    assert covered == "topic"
    assert "✓ an ancestor of `escalate`" in text


async def test_half_typed_text_is_not_guessed(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("hover-half.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)
    broken = EXAMPLE.replace("{ from: combine, to: draft-reply }", "{ from: combine, to: draft-re")
    client.replace_all(uri, broken)
    assert [d.code for d in await client.diagnostics_for(uri)] == ["yaml-syntax"]
    # the edited text was never analysed: no answer rather than the old id's
    assert await hover(client, uri, broken, "to: draft-re", at=7) == ("", None)
    # everything else still answers from the last good analysis, at its new place
    text, covered = await hover(client, uri, broken, "{ from: escalate", at=9)
    assert covered == "escalate" and text.startswith("**node `escalate`** · `human_gate`")


async def test_embedded_source_with_backticks_stays_one_code_span(
    client: RelaviumClient, workspace: Workspace
) -> None:
    """A template-literal merge_fn shown in the hover of a read of its node: the code span's
    fence is longer than the backtick runs inside (rendering:
    tests/analysis/ide/test_code_span.py)."""
    merge_fn = "`${run.outputs[\"history\"].topic} ``x``: ${ctx.team}`"
    source = EXAMPLE.replace(
        "Object.assign({}, ...branches, { team: ctx.team })", merge_fn
    )
    uri = workspace.open("hover-backticks.relavium.yaml", source)
    text, covered = await hover(client, uri, source, 'run.outputs["combine"]', at=15)
    assert covered == "combine"
    assert f"· ``` {merge_fn} ```" in text


async def test_a_node_says_which_branch_gates_it_and_a_leak(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("hover-gated.relavium.yaml", EXAMPLE)
    text, covered = await hover(client, uri, EXAMPLE, "- id: escalate", at=6)
    assert covered == "escalate" and "\n\ngated by `route:urgent`" in text
    leaky = EXAMPLE.replace('{{ run.outputs["topic"] }}', '{{ run.outputs["classify"].topic }}')
    uri = workspace.open("hover-leaked.relavium.yaml", leaky)
    text, _ = await hover(client, uri, leaky, "- id: escalate", at=6)
    assert text.endswith("gated by `route:urgent` · ⚠ runs also when `route` chooses another "
                         "branch (leaked-branch)")
