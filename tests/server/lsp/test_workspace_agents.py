"""The workspace agent index in the server, over real stdio: a workflow in a project resolves its
`agent_ref`s across files (its project's `.relavium/` agent files, on disk or open in the
editor), and an edit to an agent file re-diagnoses the open workflows that may use it."""

from __future__ import annotations

import pytest
from lsprotocol import types

from server.lsp.language_server import LARGE_DOCUMENT_CHARS
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier, position

pytestmark = pytest.mark.asyncio(loop_scope="module")

AGENT = "id: {id}\nmodel: claude-sonnet-4\nprovider: anthropic\nsystem_prompt: You help.\n"


def workflow(*uses: str) -> str:
    lines = ["schema_version: '1.0'", "workflow:", "  id: demo", "  agents:",
             "    - { id: writer, model: m, provider: anthropic, system_prompt: p }",
             "  nodes:", "    - { id: start, type: input }"]
    lines += [f"    - {{ id: n{i}, type: agent, agent_ref: {use} }}" for i, use in enumerate(uses)]
    lines += ["  edges:"]
    lines += [f"    - {{ from: start, to: n{i} }}" for i in range(len(uses))]
    return "\n".join(lines) + "\n"


def unknown_agents(diagnostics: list[types.Diagnostic], text: str) -> list[str]:
    lines = text.splitlines()
    return [lines[d.range.start.line].split("agent_ref: ")[1].rstrip(" }")
            for d in diagnostics if d.code == "unknown-agent"]


def write_agent(client: RelaviumClient, workspace: Workspace, name: str, text: str) -> None:
    """Write an agent file as another program would: a client watching files reports it."""
    workspace.write(name, text)
    if any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations):
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=workspace.uri(name), type=types.FileChangeType.Created)]))


async def next_diagnostics(client: RelaviumClient, uri: str, seen: int
                           ) -> list[types.Diagnostic]:
    """The diagnostics after the `seen` publishes so far (pulled: the next pull's)."""
    if client.pull_mode:
        return await client.diagnostics_for(uri)
    published = await client.wait_for(
        lambda: client.published.get(uri, [])[seen:] or None, f"a new publish for {uri}")
    return list(published[-1].diagnostics)


async def test_a_project_workflow_resolves_the_projects_agent_files(
        client: RelaviumClient, workspace: Workspace) -> None:
    write_agent(client, workspace, ".relavium/agents/helper.agent.yaml", AGENT.format(id="helper"))
    text = workflow("writer", "helper", "nobody")
    uri = workspace.open(".relavium/workflows/resolves.relavium.yaml", text)
    diagnostics = await client.diagnostics_for(uri)
    # judged alone, `helper` (not in workflow.agents) was reported too
    assert unknown_agents(diagnostics, text) == ["nobody"]
    [nobody] = [d for d in diagnostics if d.code == "unknown-agent"]
    assert "the project's agent files under .relavium/" in nobody.message


async def test_an_open_agent_buffer_is_what_workflows_resolve_until_it_is_closed(
        client: RelaviumClient, workspace: Workspace) -> None:
    write_agent(client, workspace, ".relavium/agents/drafts.agent.yaml",
                AGENT.format(id="old-drafter"))
    text = workflow("drafter")
    uri = workspace.open(".relavium/workflows/buffer.relavium.yaml", text)
    assert unknown_agents(await client.diagnostics_for(uri), text) == ["drafter"]

    seen = len(client.published.get(uri, []))
    agent = workspace.uri(".relavium/agents/drafts.agent.yaml")
    client.open(agent, AGENT.format(id="drafter"))  # unsaved: the disk still says old-drafter
    assert unknown_agents(await next_diagnostics(client, uri, seen), text) == []

    seen = len(client.published.get(uri, []))
    client.replace_all(agent, AGENT.format(id="redrafter"))
    assert unknown_agents(await next_diagnostics(client, uri, seen), text) == ["drafter"]

    seen = len(client.published.get(uri, []))
    client.replace_all(agent, AGENT.format(id="drafter"))
    assert unknown_agents(await next_diagnostics(client, uri, seen), text) == []

    seen = len(client.published.get(uri, []))
    client.close(agent)  # the file on disk again
    assert unknown_agents(await next_diagnostics(client, uri, seen), text) == ["drafter"]


async def test_a_workflow_in_no_project_is_judged_alone(
        client: RelaviumClient, workspace: Workspace) -> None:
    # the workspace folder holds .relavium/ (the tests above): a sibling folder is in no project
    outside = workspace.root.parent / f"{workspace.root.name}-alone"
    outside.mkdir(exist_ok=True)
    path = outside / "alone.relavium.yaml"
    text = workflow("writer", "helper")
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.open(uri, text)
    [helper] = [d for d in await client.diagnostics_for(uri) if d.code == "unknown-agent"]
    assert "names no agent in workflow.agents" in helper.message


async def test_a_large_workflow_in_a_project_says_nothing_cross_file(
        client: RelaviumClient, workspace: Workspace) -> None:
    """The analysis process has no index: a large project workflow is not judged alone there
    (`helper` is the project's agent), and its other findings still come."""
    write_agent(client, workspace, ".relavium/agents/helper.agent.yaml", AGENT.format(id="helper"))
    small = workflow("helper", "nobody").replace("type: input", "type: inptu")
    text = small + "# padding\n" * (LARGE_DOCUMENT_CHARS // 10 + 1)
    assert len(text) >= LARGE_DOCUMENT_CHARS
    uri = workspace.open(".relavium/workflows/large.relavium.yaml", text)
    assert [d.code for d in await client.diagnostics_for(uri)] == ["invalid-value"]


REVIEWER = ("id: reviewer\nmodel: claude-sonnet-4\nprovider: anthropic\ntools: [web_search]\n"
            "output_schema:\n  type: object\n  properties:\n    verdict: { type: string }\n"
            "system_prompt: |\n  You review drafts.\n  Be brief.\n  Cite lines.\n  Never guess.\n")


async def test_hover_definition_and_completion_reach_an_agent_files_agent(
        client: RelaviumClient, workspace: Workspace) -> None:
    write_agent(client, workspace, ".relavium/agents/reviewer.agent.yaml", REVIEWER)
    text = workflow("writer", "reviewer")
    uri = workspace.open(".relavium/workflows/navigate.relavium.yaml", text)
    await client.diagnostics_for(uri)
    at_ref = position(client, text, "agent_ref: reviewer", at=len("agent_ref: re"))

    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=identifier(uri), position=at_ref))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    shown = hover.contents.value
    assert shown.startswith("**agent `reviewer`** · agent · model `claude-sonnet-4` · "
                            "provider `anthropic`")
    assert "tools: `web_search`" in shown
    assert "output_schema: `object` with `verdict`" in shown
    # the prompt's first three lines, marked as cut
    assert "> You review drafts.\n> Be brief.\n> Cite lines.…" in shown
    assert "Never guess" not in shown
    assert str(workspace.root / ".relavium" / "agents" / "reviewer.agent.yaml") in shown

    [target] = await client.text_document_definition_async(
        types.DefinitionParams(text_document=identifier(uri), position=at_ref))
    assert isinstance(target, types.Location)
    assert target.uri == workspace.uri(".relavium/agents/reviewer.agent.yaml")
    assert target.range == types.Range(start=types.Position(line=0, character=4),
                                       end=types.Position(line=0, character=12))

    typed = text.replace("agent_ref: reviewer", "agent_ref: ")
    client.replace_all(uri, typed)
    found = await client.text_document_completion_async(types.CompletionParams(
        text_document=identifier(uri), position=position(client, typed, "agent_ref:  }",
                                                         at=len("agent_ref: "))))
    assert isinstance(found, types.CompletionList)
    labels = [item.label for item in found.items]
    # the inline agent first, then the project's agent files' (helper from the first test)
    assert labels[0] == "writer" and "reviewer" in labels
    [reviewer] = [item for item in found.items if item.label == "reviewer"]
    assert reviewer.detail == "agent · reviewer.agent.yaml"


async def test_references_of_an_agent_files_agent_span_the_open_workflows(
        client: RelaviumClient, workspace: Workspace) -> None:
    write_agent(client, workspace, ".relavium/agents/critic.agent.yaml",
                REVIEWER.replace("id: reviewer", "id: critic"))
    first_text, second_text = workflow("critic", "writer"), workflow("writer", "critic", "critic")
    first = workspace.open(".relavium/workflows/refs-one.relavium.yaml", first_text)
    second = workspace.open(".relavium/workflows/refs-two.relavium.yaml", second_text)
    # an inline `critic` hides the file's: not a reference to it
    shadowed_text = workflow("critic").replace("id: writer", "id: critic")
    shadowed = workspace.open(".relavium/workflows/refs-inline.relavium.yaml", shadowed_text)
    for uri in (first, second, shadowed):
        await client.diagnostics_for(uri)

    async def references(include_declaration: bool) -> set[tuple[str, int]]:
        found = await client.text_document_references_async(types.ReferenceParams(
            text_document=identifier(first),
            position=position(client, first_text, "agent_ref: critic", at=len("agent_ref: c")),
            context=types.ReferenceContext(include_declaration=include_declaration)))
        return {(location.uri, location.range.start.line) for location in found or []}

    def line_of(text: str, needle: str, nth: int = 0) -> int:
        return [i for i, line in enumerate(text.splitlines()) if needle in line][nth]

    uses = {(first, line_of(first_text, "agent_ref: critic")),
            (second, line_of(second_text, "agent_ref: critic")),
            (second, line_of(second_text, "agent_ref: critic", 1))}
    assert await references(False) == uses
    agent = workspace.uri(".relavium/agents/critic.agent.yaml")
    assert await references(True) == uses | {(agent, 0)}


async def test_a_node_hover_names_its_file_agents_output_properties(
        client: RelaviumClient, workspace: Workspace) -> None:
    """The node has no output_schema: its agent file's is the node's output (the engine's
    `node.output_schema ?? agent.output_schema`, engine/agent-runner.ts 839f2bd)."""
    write_agent(client, workspace, ".relavium/agents/judge.agent.yaml",
                REVIEWER.replace("id: reviewer", "id: judge"))
    text = workflow("judge")
    uri = workspace.open(".relavium/workflows/node-hover.relavium.yaml", text)
    await client.diagnostics_for(uri)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=identifier(uri), position=position(client, text, "id: n0", at=5)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "agent `judge` · outputs `verdict`" in hover.contents.value
