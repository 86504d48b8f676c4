"""unknown-agent: an agent node's `agent_ref` names no agent the workflow can resolve.

Without a workspace index (one file judged alone) the agents are the workflow's inline ones, and
nothing is reported when the workflow declares none (they all come from elsewhere) or has a `$ref`
agent (whose id lives in another file). With an index (`RuleContext.resolution`) the agents are
the inline ones, the `$ref` files' and the project's agent files under `.relavium/`
(`analysis.project.workspace`), so the check is exact across files; it still says nothing when a
source could not be read (a failed `$ref` is unresolved-agent-file's) or when a workflow outside
any project declares no agents. A warning: the engine's host registry that would refuse a dangling
`agent_ref` at plan build is not wired on any surface yet (ADR-0094), so the node fails when it
runs instead."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.fixes import change_name
from analysis.diagnostics import Diagnostic, Severity
from analysis.naming import Suggestions

RULE_ID = "unknown-agent"
SEVERITY = Severity.WARNING
SUMMARY = "An agent_ref that names no agent the workflow can resolve (a typo, or a missing agent)."

ALONE = ("names no agent in workflow.agents{hint}; fix the id or declare the agent there (fine as "
         "it is only if the workspace agent registry provides it)")
ACROSS_FILES = ("names no agent this workflow can resolve (its inline agents, its $ref files or "
                "the project's agent files under .relavium/){hint}; fix the id, or define the "
                "agent")


def _known(ctx: RuleContext) -> tuple[set[str], str] | None:
    """The ids an agent_ref may name and the message's tail, or None when not judged."""
    workflow = ctx.workflow
    resolution = ctx.resolution
    if resolution is None:
        if not workflow.agents_by_id or any(agent.is_ref for agent in workflow.agents):
            return None
        return set(workflow.agents_by_id), ALONE
    if not resolution.complete or not (workflow.agents or resolution.in_project):
        return None
    return resolution.known_ids(), ACROSS_FILES


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    known = _known(ctx)
    if known is None:
        return
    ids, tail = known
    suggestions = Suggestions(sorted(ids))
    for node in ctx.nodes_of("agent"):
        ref = node.agent_ref
        if ref is None or ref.id in ids:
            continue
        hint, data = suggestions.did_you_mean(ref.id)
        yield ctx.diagnostic(
            RULE_ID, SEVERITY, *ref.span,
            f"node '{node.id}': agent_ref '{ref.id}' " + tail.format(hint=hint),
            {"name": ref.id, **data},
            fixes=change_name(ctx.source, ref.span, ref.id, suggestions.closest(ref.id)),
        )
