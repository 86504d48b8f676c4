"""The quick fix "Create agent `x`" on unknown-agent, over real stdio: offered as the
`relavium.createFiles` command, it writes `.relavium/agents/x.agent.yaml` (inside the workspace,
never through a link, never over a file), and the workflow's finding goes."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types

from analysis.document.source import SourceText
from analysis.document.yaml_read import read_yaml
from analysis.schema.agent_file import validate_agent_file
from tests.server.conftest import RelaviumClient, Workspace

pytestmark = pytest.mark.asyncio(loop_scope="module")


def workflow(use: str) -> str:
    return ("schema_version: '1.0'\nworkflow:\n  id: demo\n  agents:\n"
            "    - { id: writer, model: claude-haiku-4-5, provider: anthropic, "
            "system_prompt: p }\n  nodes:\n    - { id: start, type: input }\n"
            f"    - {{ id: a, type: agent, agent_ref: {use} }}\n"
            "  edges:\n    - { from: start, to: a }\n")


def tell_code_actions_from_commands(client: RelaviumClient) -> None:
    """A code action that carries a command is still a code action: LSP tells the two apart by
    `command` being a string (a Command's) or an object (a CodeAction's); pygls' converter tries
    Command first and takes the object for its name."""
    converter = client.protocol._converter

    def structure(raw: Any, _: Any) -> types.Command | types.CodeAction:
        kind = types.Command if isinstance(raw.get("command"), str) else types.CodeAction
        return converter.structure(raw, kind)

    converter.register_structure_hook(types.Command | types.CodeAction, structure)


async def create_agent_action(client: RelaviumClient, uri: str, agent_id: str
                              ) -> types.CodeAction:
    tell_code_actions_from_commands(client)
    [finding] = [d for d in await client.diagnostics_for(uri) if d.code == "unknown-agent"]
    actions = await client.quick_fixes(uri, finding)
    [create] = [a for a in actions if a.title.startswith(f"Create agent `{agent_id}`")]
    return create


async def test_create_agent_writes_a_valid_agent_file_that_resolves(
        client: RelaviumClient, workspace: Workspace) -> None:
    text = workflow("researcher")
    uri = workspace.open(".relavium/workflows/create.relavium.yaml", text)
    create = await create_agent_action(client, uri, "researcher")
    assert create.edit is None and create.command is not None
    assert create.command.command == "relavium.createFiles"
    seen = len(client.published.get(uri, []))
    answer = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=create.command.command, arguments=create.command.arguments))
    assert answer["created"] is True
    created = workspace.root / ".relavium" / "agents" / "researcher.agent.yaml"
    written = created.read_text(encoding="utf-8")
    # the workflow's own inline agent's provider and model
    assert written.startswith("id: researcher\nprovider: anthropic\nmodel: claude-haiku-4-5\n")
    source = SourceText(written)
    problems, _ = validate_agent_file(source, read_yaml(source).root)
    assert problems == []
    if client.pull_mode:
        after = await client.diagnostics_for(uri)
    else:  # the workflow is diagnosed again once the file is made
        after = (await client.wait_for(lambda: client.published.get(uri, [])[seen:] or None,
                                       "a new publish"))[-1].diagnostics
    assert [d.code for d in after if d.code == "unknown-agent"] == []

    # a second time: the file exists, so the fix is gone, and the command refuses
    again = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=create.command.command, arguments=create.command.arguments))
    assert again["created"] is False
    assert created.read_text(encoding="utf-8") == written


async def test_create_agent_never_writes_through_a_link_out_of_the_workspace(
        client: RelaviumClient, workspace: Workspace,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    project = workspace.root / "linked"
    (project / ".relavium").mkdir(parents=True)
    (project / ".relavium" / "agents").symlink_to(outside, target_is_directory=True)
    uri = workspace.open("linked/.relavium/workflows/w.relavium.yaml", workflow("planted"))
    create = await create_agent_action(client, uri, "planted")
    assert create.command is not None
    answer = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=create.command.command, arguments=create.command.arguments))
    assert answer["created"] is False
    assert "refusing to write" in answer["message"] and "symbolic link" in answer["message"]
    assert list(outside.iterdir()) == []
