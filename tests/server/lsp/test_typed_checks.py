"""The typed checks (#23) through the real server over stdio: a misspelt property of a closed
output_schema is reported where it is read and fixed by its quick fix; an object written into a
prompt without `| json` is an error; a condition branch no result reaches is a warning."""

from __future__ import annotations

import pytest

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
