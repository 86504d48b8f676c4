"""unknown-agent: an agent node's `agent_ref` names no declared agent."""

from collections.abc import Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.naming import did_you_mean
from analysis.rules import RuleContext

RULE_ID = "unknown-agent"
SEVERITY = Severity.ERROR
SUMMARY = "An agent_ref that names no agent in workflow.agents."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    workflow = ctx.workflow
    if any(agent.is_ref for agent in workflow.agents):
        return  # a `$ref` agent's id lives in another file: no false positives
    for node in workflow.nodes:
        ref = node.agent_ref if node.type == "agent" else None
        if ref is None or ref.id in workflow.agents_by_id:
            continue
        hint, data = did_you_mean(ref.id, workflow.agents_by_id)
        yield ctx.diagnostic(
            RULE_ID, SEVERITY, *ref.span,
            f"node '{node.id}': agent_ref '{ref.id}' names no agent in workflow.agents{hint}; "
            "declare the agent or fix the id",
            {"name": ref.id, **data},
        )
