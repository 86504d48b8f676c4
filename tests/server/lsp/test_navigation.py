"""Definition, references and rename end to end, in both client profiles."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.cursor import identifier, offset_of, position, spanned

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")


async def definition(client: RelaviumClient, uri: str, at: types.Position) -> list[types.Location]:
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=identifier(uri), position=at)
    )
    assert isinstance(found, list | type(None))
    return [loc for loc in found or [] if isinstance(loc, types.Location)]


async def references(
    client: RelaviumClient, uri: str, at: types.Position, declaration: bool = True
) -> list[str]:
    """Each reference as the text of its line with the span bracketed, in document order."""
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=identifier(uri),
            position=at,
            context=types.ReferenceContext(include_declaration=declaration),
        )
    )
    text = client.text(uri)
    shown = []
    for location in found or []:
        assert location.uri == uri
        assert location.range.start.line == location.range.end.line
        line = text.splitlines()[location.range.start.line]
        name = spanned(client, text, location.range)
        shown.append(f"{location.range.start.line}:{name}:{line.strip()[:30]}")
    return shown


async def rename(
    client: RelaviumClient, uri: str, at: types.Position, new_name: str
) -> types.WorkspaceEdit | None:
    return await client.text_document_rename_async(
        types.RenameParams(text_document=identifier(uri), position=at, new_name=new_name)
    )


def edits_of(client: RelaviumClient, uri: str, edit: types.WorkspaceEdit) -> list[types.TextEdit]:
    if edit.document_changes is not None:
        (change,) = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.version == client.documents[uri].version
        return [e for e in change.edits if isinstance(e, types.TextEdit)]
    assert edit.changes is not None
    return list(edit.changes[uri])


async def test_definition_of_a_node_read_in_an_expression(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("definition.relavium.yaml", EXAMPLE)
    for needle, nth in [('run.outputs["classify"]', 0), ("run.outputs.classify", 0),
                        ("to: classify", 0), ("run.outputs.classify", 1)]:
        at = position(client, EXAMPLE, needle, nth, at=len(needle) - 3)
        (location,) = await definition(client, uri, at)
        assert location.uri == uri
        assert spanned(client, EXAMPLE, location.range) == "classify"
        assert location.range.start == position(client, EXAMPLE, "- id: classify", at=6)


async def test_definition_of_inputs_ctx_and_agent_ref(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("definition-scope.relavium.yaml", EXAMPLE)
    cases = [
        ("inputs.severity_floor", "{ name: severity_floor", "severity_floor"),
        ("{{ ctx.team }}", "{ key: team", "team"),
        ("ctx.team })", "{ key: team", "team"),
        ("agent_ref: writer", "- id: writer", "writer"),
        ("{{ inputs.crm_token }}", "{ name: crm_token", "crm_token"),
    ]
    for needle, declared, name in cases:
        at = position(client, EXAMPLE, needle, at=needle.index(name) + 1)
        (location,) = await definition(client, uri, at)
        assert spanned(client, EXAMPLE, location.range) == name
        assert location.range.start == position(client, EXAMPLE, declared,
                                                 at=declared.index(name))


async def test_definition_of_an_edge_handle_is_its_branch(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("definition-handle.relavium.yaml", EXAMPLE)
    (location,) = await definition(client, uri, position(client, EXAMPLE, "'route:urgent'", at=8))
    assert location.range.start == position(client, EXAMPLE, "{ when: urgent", at=8)
    assert spanned(client, EXAMPLE, location.range) == "urgent"


async def test_nothing_to_define_answers_empty(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("definition-empty.relavium.yaml", EXAMPLE)
    assert await definition(client, uri, position(client, EXAMPLE, "max_parallel")) == []
    unknown = workspace.uri("never-opened.relavium.yaml")
    assert await definition(client, unknown, types.Position(line=0, character=0)) == []


async def test_references_cover_every_place(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("references.relavium.yaml", EXAMPLE)
    found = await references(client, uri, position(client, EXAMPLE, "- id: classify", at=7))
    assert [entry.split(":", 2)[:2] for entry in found] == [
        ["31", "classify"],  # the definition
        ["45", "classify"],  # run.outputs["classify"] in route's expression
        ["62", "classify"],  # run.outputs.classify in history's transform
        ["83", "classify"],  # run.outputs.classify in topic's transform
        ["85", "classify"],  # edges: to
        ["86", "classify"],  # edges: from
    ]
    without = await references(
        client, uri, position(client, EXAMPLE, "to: classify", at=5), declaration=False
    )
    assert len(without) == 5 and not any(entry.startswith("31:") for entry in without)


async def test_references_of_a_handle_edge_source_and_parallel_member(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("references-route.relavium.yaml", EXAMPLE)
    found = await references(client, uri, position(client, EXAMPLE, "'route:urgent'", at=2))
    assert [entry.split(":", 2)[:2] for entry in found] == [
        ["42", "route"], ["86", "route"], ["87", "route"], ["89", "route"]
    ]
    members = await references(client, uri, position(client, EXAMPLE, "[history", at=3))
    assert [entry.split(":", 2)[:2] for entry in members] == [
        ["59", "history"], ["60", "history"], ["90", "history"], ["92", "history"]
    ]


async def test_rename_a_node_everywhere(client: RelaviumClient, workspace: Workspace) -> None:
    uri = workspace.open("rename.relavium.yaml", EXAMPLE)
    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(
            text_document=identifier(uri), position=position(client, EXAMPLE, "to: combine", at=6)
        )
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "combine"
    assert spanned(client, EXAMPLE, prepared.range) == "combine"
    edit = await rename(client, uri, position(client, EXAMPLE, "to: classify", at=5),
                        "classify-ticket")
    assert edit is not None
    client.apply_text_edits(uri, edits_of(client, uri, edit))
    # the dot form cannot spell a kebab id: it becomes the bracket form, quoted for the YAML
    expected = (
        EXAMPLE.replace("- id: classify\n", "- id: classify-ticket\n")
        .replace('run.outputs["classify"]', 'run.outputs["classify-ticket"]')
        .replace("run.outputs.classify.", 'run.outputs["classify-ticket"].')
        .replace("to: classify }", "to: classify-ticket }")
        .replace("from: classify,", "from: classify-ticket,")
    )
    assert client.text(uri) == expected
    assert [d for d in await client.diagnostics_for(uri)
            if d.severity == types.DiagnosticSeverity.Error] == []


@pytest.mark.parametrize(
    ("new_name", "message"),
    [
        ("Classify_Ticket", "'Classify_Ticket' is not a valid node id: use kebab-case"),
        ("route", "a node with id 'route' already exists (line 43)"),
    ],
)
async def test_rename_refuses_with_a_clear_message(
    client: RelaviumClient, workspace: Workspace, new_name: str, message: str
) -> None:
    uri = workspace.open(f"rename-refused-{new_name}.relavium.yaml", EXAMPLE)
    with pytest.raises(JsonRpcException) as raised:
        await rename(client, uri, position(client, EXAMPLE, "- id: classify", at=7), new_name)
    assert message in raised.value.message
    assert client.text(uri) == EXAMPLE


async def test_prepare_rename_refuses_what_is_not_a_node(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("prepare-refused.relavium.yaml", EXAMPLE)
    with pytest.raises(JsonRpcException) as raised:
        await client.text_document_prepare_rename_async(
            types.PrepareRenameParams(
                text_document=identifier(uri),
                position=position(client, EXAMPLE, "inputs.severity_floor", at=9),
            )
        )
    assert "only node and agent ids can be renamed" in raised.value.message


async def test_navigation_with_emoji_and_accents(
    client: RelaviumClient, workspace: Workspace
) -> None:
    text = EXAMPLE.replace(
        "transform: '({ topic: run.outputs.classify.topic,",
        "transform: '({ \"😀é\": \"ü😀\", topic: run.outputs.classify.topic,",
    )
    uri = workspace.open("emoji.relavium.yaml", text)
    at = position(client, text, "run.outputs.classify.topic", at=14)
    (location,) = await definition(client, uri, at)
    assert location.range.start == position(client, text, "- id: classify", at=6)
    found = await references(client, uri, at)
    assert any(entry.startswith("62:classify:") for entry in found)
    edit = await rename(client, uri, at, "sort")
    assert edit is not None
    client.apply_text_edits(uri, edits_of(client, uri, edit))
    assert "'({ \"😀é\": \"ü😀\", topic: run.outputs.sort.topic," in client.text(uri)


async def test_served_from_the_last_good_model_while_half_typed(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("half-typed.relavium.yaml", EXAMPLE)
    await client.diagnostics_for(uri)
    broken = EXAMPLE.replace("  edges:\n", "  edges:\n    - { from: sta\n")
    client.replace_all(uri, broken)
    assert [d.code for d in await client.diagnostics_for(uri)] == ["yaml-syntax"]
    at = position(client, broken, "{ from: combine, to: draft-reply }", at=25)
    (location,) = await definition(client, uri, at)
    assert location.range.start == position(client, broken, "- id: draft-reply", at=6)
    with pytest.raises(JsonRpcException) as raised:
        await rename(client, uri, at, "draft")
    assert "fix the syntax error" in raised.value.message
    assert offset_of(broken, "draft-reply") > 0


async def test_unknown_documents_answer_empty(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.uri("never-opened-rename.relavium.yaml")
    at = types.Position(line=3, character=6)
    found = await client.text_document_references_async(
        types.ReferenceParams(text_document=identifier(uri), position=at,
                              context=types.ReferenceContext(include_declaration=True))
    )
    assert found is not None and list(found) == []
    assert await rename(client, uri, at, "x") is None
    assert await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=identifier(uri), position=at)
    ) is None
    opened = workspace.open("closed-later.relavium.yaml", EXAMPLE)
    client.close(opened)
    assert await definition(client, opened, position(client, EXAMPLE, "to: classify", at=5)) == []


async def test_a_refused_rename_is_an_answer_not_a_logged_server_error(
    client: RelaviumClient, workspace: Workspace, capfd: pytest.CaptureFixture[str]
) -> None:
    """pygls logged every refusal at ERROR level with a traceback (issue 21): the server's stderr,
    which pytest-lsp forwards here, must hold none for it."""
    uri = workspace.open("rename-refusal-log.relavium.yaml", EXAMPLE)
    capfd.readouterr()
    for new_name in ("route", "9 bad"):
        with pytest.raises(JsonRpcException) as raised:
            await rename(client, uri, position(client, EXAMPLE, "- id: classify", at=7), new_name)
        assert raised.value.code == -32803 and raised.value.message  # LSP's RequestFailed
    # A request for no method: pygls logs a warning for it after anything the renames logged.
    with pytest.raises(JsonRpcException):
        await client.protocol.send_request_async("relavium/noSuchMethod", {})
    logged = ""
    for _ in range(100):
        logged += capfd.readouterr().err
        if "noSuchMethod" in logged:
            break
        await asyncio.sleep(0.05)
    assert "noSuchMethod" in logged
    assert "Traceback" not in logged and "ERROR" not in logged, logged
