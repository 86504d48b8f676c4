"""Agent files over real stdio: diagnosed as the engine's `parseAgent` judges them (not as a
workflow), and no workflow feature answers with workflow nonsense in one."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types

from tests.conftest import FIXTURES
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier, position

pytestmark = pytest.mark.asyncio(loop_scope="module")

# The example agent of the engine's docs/reference/contracts/agent-yaml-spec.md (839f2bd), which
# `parseAgent` loads.
AGENT = (FIXTURES / "agents" / "engine" / "spec-example.agent.yaml").read_text(encoding="utf-8")


async def test_a_valid_agent_file_opens_clean(client: RelaviumClient,
                                              workspace: Workspace) -> None:
    for name in (".relavium/agents/summarizer.agent.yaml", ".relavium/agents/summarizer.yaml",
                 "agents/summarizer.agent.yml"):
        uri = workspace.open(name, AGENT)
        assert await client.diagnostics_for(uri) == [], name


async def test_an_invalid_agent_file_gets_the_engines_refusals(
        client: RelaviumClient, workspace: Workspace) -> None:
    text = AGENT.replace("temperature: 0.3", "temperature: 3\nschema_version: '1.0'")
    uri = workspace.open(".relavium/agents/broken.agent.yaml", text)
    found = [(d.code, d.range.start.line) for d in await client.diagnostics_for(uri)]
    line = text.splitlines().index("temperature: 3")
    assert found == [("invalid-value", line), ("unknown-key", line + 1)]


async def test_workflow_features_are_quiet_in_an_agent_file(
        client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open(".relavium/agents/quiet.agent.yaml", AGENT)
    await client.diagnostics_for(uri)
    document = identifier(uri)
    # the outline, semantic tokens and code lenses read a workflow model: an agent file has
    # none, so they answer nothing rather than list `nodes` or expressions
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=document))
    assert list(symbols or []) == []
    folding = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=document))
    assert all(r.end_line > r.start_line for r in folding or [])
    tokens = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=document))
    # nothing in an agent is JavaScript: no expression tokens
    assert tokens is None or list(tokens.data) == []


async def test_an_edit_and_its_quick_fix_in_an_agent_file(
        client: RelaviumClient, workspace: Workspace) -> None:
    """The incremental analysis of an edited agent file stays an agent's, and a rule's own fix
    (the closest key) is offered — no "Ignore …": suppression is read in workflows only."""
    uri = workspace.open(".relavium/agents/edited.agent.yaml", AGENT)
    assert await client.diagnostics_for(uri) == []
    client.replace_all(uri, AGENT.replace("max_tokens: 512", "max_tokns: 512"))
    [diagnostic] = await client.diagnostics_for(uri)
    assert diagnostic.code == "unknown-key"
    [action] = await client.quick_fixes(uri, diagnostic)
    assert action.title == "Change `max_tokns` to `max_tokens`"
    client.apply_action(uri, action)
    assert client.text(uri) == AGENT
    assert await client.diagnostics_for(uri) == []


async def test_hover_in_an_agent_file_documents_the_agents_keys(
        client: RelaviumClient, workspace: Workspace) -> None:
    text = AGENT.replace("temperature: 0.3", "temperature: 3")
    uri = workspace.open(".relavium/agents/hover.agent.yaml", text)
    await client.diagnostics_for(uri)

    async def hover_at(needle: str, at: int = 0) -> str:
        found = await client.text_document_hover_async(types.HoverParams(
            text_document=identifier(uri), position=position(client, text, needle, at=at)))
        assert found is not None and isinstance(found.contents, types.MarkupContent), needle
        return found.contents.value

    assert (await hover_at("provider")).startswith(
        "**`provider`** (one of: anthropic, openai, gemini, deepseek, required) · The LLM "
        "provider.")
    # the key's doc, and the rule of the diagnostic under the cursor
    on_temperature = await hover_at("temperature")
    assert on_temperature.startswith("**`temperature`** (number 0–2)")
    assert "**invalid-value**" in await hover_at("temperature: 3", at=len("temperature: "))
    # ADR-0086's ceiling: at most 10 attempts per fallback entry
    assert (await hover_at("max_attempts")).startswith(
        "**`max_attempts`** (integer 1–10, required)")


async def test_completion_in_an_agent_file_offers_the_agents_keys_and_values(
        client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open(".relavium/agents/complete.agent.yaml", AGENT)
    await client.diagnostics_for(uri)

    async def labels(text: str, needle: str, at: int) -> list[str]:
        client.replace_all(uri, text)
        found = await client.text_document_completion_async(types.CompletionParams(
            text_document=identifier(uri), position=position(client, text, needle, at=at)))
        assert isinstance(found, types.CompletionList)
        return [item.label for item in found.items]

    # a value: the provider enum, never a workflow's node types
    assert await labels(AGENT, "provider: anthropic", len("provider: ")) == [
        "anthropic", "openai", "gemini", "deepseek"]
    # a key at the top level: the agent's keys not yet written, no `schema_version` or `nodes`
    typed = AGENT.replace("max_tokens: 512", "max_tokens: 512\nreas")
    keys = await labels(typed, "\nreas", len("\nreas"))
    assert {"reasoning_effort", "memory", "mcp_servers"} <= set(keys)
    assert not {"id", "model", "schema_version", "nodes", "workflow"} & set(keys)
    # inside a fallback_chain entry: that entry's keys
    nested = AGENT.replace("    max_attempts: 1\n", "    max_attempts: 1\n  - mod\n")
    assert "model" in await labels(nested, "  - mod", len("  - mod"))


async def test_the_workflow_commands_say_an_agent_file_is_not_a_workflow(
        client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open(".relavium/agents/commands.agent.yaml", AGENT)
    await client.diagnostics_for(uri)
    for command in ("relavium.dryRunWorkflow", "relavium.createSampleScope",
                    "relavium.runWithSampleScope"):
        arguments = {"uri": uri, "position": {"line": 0, "character": 0}} \
            if command == "relavium.runWithSampleScope" else {"uri": uri}
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=[arguments]))
        assert "this is an agent file, not a workflow" in json.dumps(result), (command, result)
    assert not (workspace.root / ".relavium" / "agents" / "commands.samples.json").exists()
