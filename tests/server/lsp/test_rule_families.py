"""Every rule family reaches the client: one edit of the example per rule, its diagnostic
published (or pulled) with code, link, source, data and related locations."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
MERGE_FN = "Object.assign({}, ...branches, { team: ctx.team })"

# rule id → (text in the example, its replacement)
EDITS = {
    # schema
    "unknown-key": ("label: Ticket received }", "label: Ticket received, colour: blue }"),
    "missing-field": ("      agent_ref: classifier\n", ""),
    "invalid-value": ("gate_type: approval", "gate_type: maybe"),
    "duplicate-key": (
        "      gate_type: approval\n",
        "      gate_type: approval\n      gate_type: input\n",
    ),
    "duplicate-id": ("- { id: done, type: output", "- { id: start, type: output"),
    "unknown-agent": ("agent_ref: writer", "agent_ref: writr"),
    "unsupported-schema-keyword": ("severity: { type: number }", "severity: { anyOf: [] }"),
    "output-schema-too-large": (
        "topic: { type: string }",
        "topic: { enum: [" + ", ".join(f"t{index}" for index in range(501)) + "] }",
    ),
    # expressions
    "js-syntax": ('? "urgent"', '? "urgent" +'),
    "reserved-expression-type": (
        "      expression: |",
        "      expression_type: jmespath\n      expression: |",
    ),
    "unknown-expression-type": (
        "      expression: |",
        "      expression_type: lua\n      expression: |",
    ),
    "unordered-output-read": ("tier: inputs.customer_tier", "tier: run.outputs.sentiment"),
    "unknown-output-reference": ("run.outputs.classify.topic", "run.outputs.clasify.topic"),
    "forbidden-global": (MERGE_FN, "Date.now()"),
    "secret-read": (MERGE_FN, "ctx.crm_auth"),
    "branches-outside-merge": ("tier: inputs.customer_tier", "tier: branches.length"),
    "template-in-expression": ("tier: inputs.customer_tier", "tier: {{ inputs.customer_tier }}"),
    "condition-when-type": (
        "{ when: normal, target_node: enrich }",
        "{ when: [normal], target_node: enrich }",
    ),
    "missing-merge-fn": (f"      merge_fn: |\n        {MERGE_FN}\n", ""),
    "unused-merge-fn": ("merge_strategy: custom", "merge_strategy: concat"),
    # graph
    "unknown-node": ("{ from: combine, to: draft-reply }", "{ from: combine, to: draft-replly }"),
    "invalid-handle": ("'route:urgent'", "'route:later'"),
    "mismatched-branch-target": (
        "{ from: 'route:urgent', to: topic }",
        "{ from: 'route:urgent', to: enrich }",
    ),
    "cycle": (
        "    - { from: escalate, to: done }\n",
        "    - { from: escalate, to: done }\n    - { from: done, to: start }\n",
    ),
    "unreachable-node": ("    - { from: start, to: classify }\n", ""),
    "ungranted-tool": ("      agent_ref: classifier\n",
                       "      agent_ref: classifier\n      tools: [read_file]\n"),
    "leaked-branch": ('{{ run.outputs["topic"] }}', '{{ run.outputs["classify"].topic }}'),
    # templates
    "unknown-template-reference": ("{{ inputs.ticket_text }}", "{{ inputs.ticket_txet }}"),
    "secret-in-template": ("{{ inputs.ticket_text }}", "{{ secrets.ticket_text }}"),
    "context-output-reference": ("value: 'support-eu'", "value: '{{ run.outputs[\"classify\"] }}'"),
    "invalid-template": ("replies/{{ run.id }}.json", "replies/{{ inputs.ticket_text }}.json"),
}
# rules whose diagnostic points at a second place
RELATED = {
    "duplicate-key",
    "duplicate-id",
    "cycle",
    "mismatched-branch-target",
    "unordered-output-read",
    "leaked-branch",
}


@pytest.mark.parametrize("rule", sorted(EDITS))
async def test_rule_reaches_the_client(
    client: RelaviumClient, workspace: Workspace, rule: str
) -> None:
    before, after = EDITS[rule]
    assert before in EXAMPLE
    uri = workspace.open(f"{rule}.relavium.yaml", EXAMPLE.replace(before, after, 1))
    found = [d for d in await client.diagnostics_for(uri) if d.code == rule]
    assert found, rule
    diagnostic = found[0]
    assert diagnostic.source == "relavium-lsp"
    assert diagnostic.code_description is not None
    assert diagnostic.code_description.href.endswith(f"/docs/rules.md#{rule}")
    assert isinstance(diagnostic.data, dict) and diagnostic.data["rule"] == rule
    assert diagnostic.message
    if rule in RELATED:
        assert diagnostic.related_information, rule
        for related in diagnostic.related_information:
            assert related.location.uri == uri and related.message
    assert diagnostic.severity in (
        types.DiagnosticSeverity.Error,
        types.DiagnosticSeverity.Warning,
        types.DiagnosticSeverity.Information,
        types.DiagnosticSeverity.Hint,
    )
