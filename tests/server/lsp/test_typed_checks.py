"""The typed checks (#23) through the real server over stdio: a misspelt property of a closed
output_schema is reported where it is read and fixed by its quick fix; an object written into a
prompt without `| json` is an error, and so is a misspelt property read in a template; a
condition branch no result reaches is a warning."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace
from tests.server.lsp.test_code_actions import only, titled

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
CLOSED = EXAMPLE.replace("      output_schema:\n        type: object\n",
                         "      output_schema:\n        type: object\n"
                         "        additionalProperties: false\n", 1)


async def test_a_misspelt_property_is_reported_and_its_fix_applies(
        client: RelaviumClient, workspace: Workspace) -> None:
    assert CLOSED != EXAMPLE
    text = CLOSED.replace("transform: 'run.outputs.classify.topic'",
                          "transform: 'run.outputs.classify.topc'")
    uri = workspace.open("typed-typo.relavium.yaml", text)
    diagnostic = await only(client, uri, "unknown-output-property")
    line = text.splitlines()[diagnostic.range.start.line]
    assert line[diagnostic.range.start.character:diagnostic.range.end.character] == "topc"
    assert "did you mean `topic`?" in diagnostic.message
    client.apply_action(uri, titled(await client.quick_fixes(uri, diagnostic),
                                    "Change `topc` to `topic`"))
    assert "transform: 'run.outputs.classify.topic'" in client.text(uri)
    assert [d for d in await client.diagnostics_for(uri)
            if d.code == "unknown-output-property"] == []


async def test_an_object_written_as_text_and_a_branch_never_taken(
        client: RelaviumClient, workspace: Workspace) -> None:
    text = CLOSED.replace('{{ run.outputs["combine"] | json }}',
                          '{{ run.outputs["classify"] }}').replace(
        "        - { when: normal, target_node: enrich }",
        "        - { when: normal, target_node: enrich }\n"
        "        - { when: nromal, target_node: enrich }")
    uri = workspace.open("typed-template.relavium.yaml", text)
    written = await only(client, uri, "template-filter-type")
    assert "add `| json`" in written.message
    never = await only(client, uri, "impossible-branch-value")
    assert "did you mean 'normal'?" in never.message


async def test_a_misspelt_property_in_a_template_is_an_error_in_client_units(
        client: RelaviumClient, workspace: Workspace) -> None:
    # getByPath gives undefined and stringify refuses it: the node fails (resolve.ts, 839f2bd)
    line = ('        Ticket 🎫 — sévérité {{ run.outputs["classify"].severty }}: '
            "{{ inputs.ticket_text }}")
    text = CLOSED.replace("        Ticket: {{ inputs.ticket_text }}", line)
    assert text != CLOSED
    uri = workspace.open("typed-template-typo.relavium.yaml", text)
    diagnostic = await only(client, uri, "unknown-output-property")
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert text.splitlines()[diagnostic.range.start.line] == line
    # the column in the units the client negotiated (UTF-16 for VS Code, UTF-8 for Neovim)
    unit, codec = {"utf-8": (1, "utf-8"), "utf-16": (2, "utf-16-le"),
                   "utf-32": (4, "utf-32-le")}[client.encoding]
    before = line[:line.index("severty")]
    column = len(before.encode(codec)) // unit
    assert column != len(before)  # the emoji and accents are more than one unit each
    assert (diagnostic.range.start.character, diagnostic.range.end.character) == (column,
                                                                                 column + 7)
    assert "did you mean `severity`?" in diagnostic.message
    client.apply_action(uri, titled(await client.quick_fixes(uri, diagnostic),
                                    "Change `severty` to `severity`"))
    assert '{{ run.outputs["classify"].severity }}' in client.text(uri)
    assert [d for d in await client.diagnostics_for(uri)
            if d.code == "unknown-output-property"] == []


async def test_edits_in_the_server_find_what_a_fresh_document_finds(
        client: RelaviumClient, workspace: Workspace) -> None:
    # each version is analysed on the previous one's result (types and steps taken over); a
    # document opened fresh with the same text is analysed alone: the two must agree
    def found(diagnostics: list[types.Diagnostic]) -> list[tuple[object, ...]]:
        return sorted((d.range.start.line, d.range.start.character, d.range.end.character,
                       d.code, d.message) for d in diagnostics)

    typo = CLOSED.replace("transform: 'run.outputs.classify.topic'",
                          "transform: 'run.outputs.classify.topc'")
    moved = typo.replace("schema_version:", "# a line above\nschema_version:", 1)
    opened = moved.replace("        additionalProperties: false\n", "", 1)
    versions = [moved, opened, moved, typo]
    uri = workspace.open("typed-edits.relavium.yaml", typo)
    first = await only(client, uri, "unknown-output-property")
    for number, text in enumerate(versions):
        assert text != client.text(uri)
        client.replace_all(uri, text)
        fresh = workspace.open(f"typed-edits-fresh-{number}.relavium.yaml", text)
        assert found(await client.diagnostics_for(uri)) == found(
            await client.diagnostics_for(fresh))
        client.close(fresh)
    shifted = [d for d in found(await client.diagnostics_for(uri))
               if d[3] == "unknown-output-property"]
    assert shifted == [(first.range.start.line, first.range.start.character,
                        first.range.end.character, first.code, first.message)]


async def test_edits_move_and_change_template_and_branch_verdicts_as_a_fresh_document_finds(
        client: RelaviumClient, workspace: Workspace) -> None:
    # template-filter-type's and impossible-branch-value's verdicts are taken over across
    # versions: moved, each lands on this version's text; changed, each is judged again
    def found(diagnostics: list[types.Diagnostic]) -> list[tuple[int, int, int, str, str]]:
        return sorted((d.range.start.line, d.range.start.character, d.range.end.character,
                       str(d.code), d.message) for d in diagnostics
                      if d.code in ("template-filter-type", "impossible-branch-value"))

    text = CLOSED.replace('{{ run.outputs["combine"] | json }}',
                          '{{ run.outputs["classify"] }}').replace(
        "        - { when: normal, target_node: enrich }",
        "        - { when: normal, target_node: enrich }\n"
        "        - { when: nromal, target_node: enrich }")
    moved = text.replace("schema_version:", "# a line above\nschema_version:", 1)
    fixed = moved.replace('{{ run.outputs["classify"] }}',
                          '{{ run.outputs["classify"] | json }}').replace("when: nromal",
                                                                         "when: normal")
    uri = workspace.open("typed-verdicts.relavium.yaml", text)
    first = found(await client.diagnostics_for(uri))
    assert sorted(row[3] for row in first) == ["impossible-branch-value", "template-filter-type"]
    for number, version in enumerate([moved, fixed, moved]):
        client.replace_all(uri, version)
        fresh = workspace.open(f"typed-verdicts-fresh-{number}.relavium.yaml", version)
        now = found(await client.diagnostics_for(uri))
        assert now == found(await client.diagnostics_for(fresh))
        client.close(fresh)
        # moved a line down, or both fixed
        assert now == ([] if version == fixed else
                       [(line + 1, *rest) for line, *rest in first])
