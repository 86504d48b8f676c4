"""Models from the engine's registry over real stdio: completion of `model` ids for the agent's
provider and hover with the model's limits and price, in workflows and agent files; and the
quick fixes of human-gate-without-timeout, unreachable-node and withheld-reasoning-effort."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier, position, spanned

pytestmark = pytest.mark.asyncio(loop_scope="module")

WORKFLOW = """schema_version: '1.0'
workflow:
  id: demo
  agents:
    - id: writer
      provider: openai
      model: gpt-5.5
      system_prompt: Write.
  nodes:
    - { id: start, type: input }
    - id: draft
      type: agent
      agent_ref: writer
      prompt_template: Draft it.
  edges:
    - { from: start, to: draft }
"""

AGENT = """id: summarizer
provider: anthropic
model: claude-sonnet-4-6
system_prompt: Summarize.
"""


async def completion(client: RelaviumClient, uri: str, text: str, needle: str
                     ) -> list[types.CompletionItem]:
    client.replace_all(uri, text)
    found = await client.text_document_completion_async(types.CompletionParams(
        text_document=identifier(uri), position=position(client, text, needle, at=len(needle))))
    assert isinstance(found, types.CompletionList)
    return sorted(found.items, key=lambda item: item.sort_text or "")


async def hover(client: RelaviumClient, uri: str, text: str, needle: str) -> types.Hover:
    found = await client.text_document_hover_async(types.HoverParams(
        text_document=identifier(uri), position=position(client, text, needle, at=2)))
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    return found


async def test_model_ids_of_the_agents_provider_with_name_and_context(
        client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("models-complete.relavium.yaml", WORKFLOW)
    await client.diagnostics_for(uri)
    text = WORKFLOW.replace("model: gpt-5.5", "model: gpt-5.")
    items = await completion(client, uri, text, "model: gpt-5.")
    labels = [item.label for item in items]
    # the registry's openai models only (o-series too: the editor filters by what is typed)
    assert "gpt-5.5" in labels and "o3" in labels
    assert not any(label.startswith(("claude", "gemini", "deepseek")) for label in labels)
    chosen = items[labels.index("gpt-5.5")]
    assert chosen.detail == "openai · GPT-5.5 · 1,050,000-token context"
    assert chosen.kind == types.CompletionItemKind.Value
    assert isinstance(chosen.text_edit, types.TextEdit)
    assert spanned(client, text, chosen.text_edit.range) == "gpt-5."
    # a node's `model` override is for its agent's provider
    override = WORKFLOW.replace("      prompt_template: Draft it.\n",
                                "      prompt_template: Draft it.\n      model: o\n")
    override_labels = [item.label for item in await completion(client, uri, override,
                                                               "model: o")]
    assert "o4-mini" in override_labels and "claude-opus-4-8" not in override_labels


async def test_model_ids_in_an_agent_file_put_deprecated_ones_last(
        client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open(".relavium/agents/models.agent.yaml", AGENT)
    assert await client.diagnostics_for(uri) == []
    text = AGENT.replace("provider: anthropic", "provider: deepseek").replace(
        "model: claude-sonnet-4-6", "model: deep")
    items = await completion(client, uri, text, "model: deep")
    assert [item.label for item in items] == [
        "deepseek-v4-flash", "deepseek-v4-pro", "deepseek-chat", "deepseek-reasoner"]
    assert items[-1].detail is not None and items[-1].detail.endswith(" · deprecated")


async def test_hover_on_a_model_shows_its_limits_and_price(
        client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("models-hover.relavium.yaml", WORKFLOW)
    await client.diagnostics_for(uri)
    found = await hover(client, uri, WORKFLOW, "gpt-5.5")
    assert isinstance(found.contents, types.MarkupContent) and found.range is not None
    assert spanned(client, WORKFLOW, found.range) == "gpt-5.5"
    assert found.contents.value.startswith("**GPT-5.5** · `gpt-5.5` (openai)")
    assert "context window 1,050,000 tokens · max output 128,000 tokens" in found.contents.value
    assert "($0.000005 / $0.00003 per token)" in found.contents.value
    agent_uri = workspace.open(".relavium/agents/hover-model.agent.yaml", AGENT)
    await client.diagnostics_for(agent_uri)
    in_agent = await hover(client, agent_uri, AGENT, "claude-sonnet-4-6")
    assert isinstance(in_agent.contents, types.MarkupContent)
    assert in_agent.contents.value.startswith("**Claude Sonnet 4.6** · `claude-sonnet-4-6`")
    # a model the registry does not carry: the key's doc only, no invented facts
    custom = WORKFLOW.replace("gpt-5.5", "my-fine-tune")
    client.replace_all(uri, custom)
    await client.diagnostics_for(uri)
    unknown = await client.text_document_hover_async(types.HoverParams(
        text_document=identifier(uri), position=position(client, custom, "my-fine-tune", at=2)))
    assert unknown is None or "context window" not in str(unknown.contents)


async def test_add_a_timeout_to_a_human_gate(client: RelaviumClient,
                                             workspace: Workspace) -> None:
    text = WORKFLOW.replace(
        "    - { from: start, to: draft }\n",
        "    - { from: start, to: draft }\n    - { from: draft, to: approve }\n",
    ).replace("  edges:\n", "    - id: approve\n      type: human_gate\n"
                            "      gate_type: approval  # the lead\n  edges:\n")
    uri = workspace.open("models-gate.relavium.yaml", text)
    [diagnostic] = await client.diagnostics_for(uri)
    assert diagnostic.code == "human-gate-without-timeout"
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    [action] = [each for each in await client.quick_fixes(uri, diagnostic)
                if not each.title.startswith("Ignore")]
    assert action.title == "Add a timeout (24 hours, then reject)"
    client.apply_action(uri, action)
    assert client.text(uri) == text.replace(
        "      gate_type: approval  # the lead\n",
        "      gate_type: approval  # the lead\n      timeout_ms: 86400000\n")
    assert await client.diagnostics_for(uri) == []


async def test_remove_an_unreachable_node(client: RelaviumClient, workspace: Workspace) -> None:
    text = WORKFLOW.replace("  edges:\n",
                            "    - { id: stray, type: transform, transform: '1' }\n  edges:\n")
    uri = workspace.open("models-unreachable.relavium.yaml", text)
    [diagnostic] = await client.diagnostics_for(uri)
    assert diagnostic.code == "unreachable-node"
    [action] = [each for each in await client.quick_fixes(uri, diagnostic)
                if not each.title.startswith("Ignore")]
    assert action.title == "Remove unreachable node 'stray'"
    client.apply_action(uri, action)
    assert client.text(uri) == WORKFLOW
    assert await client.diagnostics_for(uri) == []
    # the first node of a detached chain is named by its edge: no removal offered
    chained = text.replace("    - { from: start, to: draft }\n",
                           "    - { from: start, to: draft }\n    - { from: stray, to: draft }\n")
    client.replace_all(uri, chained)
    [again] = await client.diagnostics_for(uri)
    assert [each.title for each in await client.quick_fixes(uri, again)
            if not each.title.startswith("Ignore")] == []


async def test_a_withheld_reasoning_effort_is_information_with_a_removal(
        client: RelaviumClient, workspace: Workspace) -> None:
    text = AGENT.replace("model: claude-sonnet-4-6", "model: gpt-4o").replace(
        "provider: anthropic", "provider: openai") + "reasoning_effort: high\n"
    uri = workspace.open(".relavium/agents/withheld.agent.yaml", text)
    [diagnostic] = await client.diagnostics_for(uri)
    assert diagnostic.code == "withheld-reasoning-effort"
    assert diagnostic.severity == types.DiagnosticSeverity.Information
    assert spanned(client, text, diagnostic.range) == "high"
    [action] = await client.quick_fixes(uri, diagnostic)
    assert action.title == "Remove `reasoning_effort`"
    client.apply_action(uri, action)
    assert client.text(uri) == text.replace("reasoning_effort: high\n", "")
    assert await client.diagnostics_for(uri) == []
