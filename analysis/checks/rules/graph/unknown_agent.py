"""unknown-agent: an agent node's `agent_ref` names no agent declared in `workflow.agents`.

A warning, not an error: the engine resolves `agent_ref` against the inline agents, sibling
`.agent.yaml` files and the workspace agent registry, which a single file cannot see. Nothing is
reported when the workflow declares no agents at all (they all come from elsewhere) or has a
`$ref` agent (whose id lives in another file)."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.fixes import change_name
from analysis.diagnostics import Diagnostic, Severity
from analysis.naming import Suggestions

RULE_ID = "unknown-agent"
SEVERITY = Severity.WARNING
SUMMARY = "An agent_ref that names no agent in workflow.agents (a typo, or a registry agent)."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    workflow = ctx.workflow
    if not workflow.agents_by_id or any(agent.is_ref for agent in workflow.agents):
        return
    suggestions = Suggestions(workflow.agents_by_id)
    for node in ctx.nodes_of("agent"):
        ref = node.agent_ref
        if ref is None or ref.id in workflow.agents_by_id:
            continue
        hint, data = suggestions.did_you_mean(ref.id)
        yield ctx.diagnostic(
            RULE_ID, SEVERITY, *ref.span,
            f"node '{node.id}': agent_ref '{ref.id}' names no agent in workflow.agents{hint}; "
            "fix the id or declare the agent there (fine as it is only if the workspace agent "
            "registry provides it)",
            {"name": ref.id, **data},
            fixes=change_name(ctx.source, ref.span, ref.id, suggestions.closest(ref.id)),
        )
