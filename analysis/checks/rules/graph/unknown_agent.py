"""unknown-agent: an agent node's `agent_ref` names no agent the workflow can resolve.

Without a workspace index (one file judged alone) the agents are the workflow's inline ones, and
nothing is reported when the workflow declares none (they all come from elsewhere) or has a `$ref`
agent (whose id lives in another file). With an index (`RuleContext.resolution`) the agents are
the inline ones, the `$ref` files' and the project's agent files under `.relavium/`
(`analysis.project.workspace`), so the check is exact across files; it still says nothing when a
source could not be read (a failed `$ref` is unresolved-agent-file's) or when a workflow outside
any project declares no agents. A warning: the engine's host registry that would refuse a dangling
`agent_ref` at plan build is not wired on any surface yet (ADR-0094), so the node fails when it
runs instead.

Fixes: the closest known id (a guess), and, for a workflow in a project, "Create agent `x`": a new
`<project>/.relavium/agents/x.agent.yaml` from a skeleton `parseAgent` accepts (the editor's only;
`check --fix` creates no file), which the project's agents folder then resolves. Not offered for
an id the engine's `kebabIdSchema` refuses (packages/shared/src/common.ts 839f2bd) or when that
file exists."""

import os
from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.fixes import change_name
from analysis.diagnostics import Diagnostic, Fix, NewFile, Severity
from analysis.document.edits import flow_scalar
from analysis.document.model import Workflow
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YScalar
from analysis.document.yaml_read import read_yaml
from analysis.naming import Suggestions
from analysis.project.kinds import PROJECT_FOLDER
from analysis.schema.agent_file import validate_agent_file
from analysis.schema.common import KEBAB

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


# What a created agent starts with when no inline agent of the workflow names a provider and model.
DEFAULT_PROVIDER = "anthropic"
DEFAULT_MODEL = "claude-sonnet-4-5"


def agent_skeleton(agent_id: str, workflow: Workflow) -> str:
    """A new agent file: the id, the provider and model of the workflow's first inline agent
    that names both when the file is then valid (else the defaults), and a prompt to write."""
    for provider, model in [*_inline_models(workflow), (DEFAULT_PROVIDER, DEFAULT_MODEL)]:
        text = (f"id: {agent_id}\nprovider: {flow_scalar(provider)}\nmodel: {flow_scalar(model)}"
                f"\nsystem_prompt: |\n  Describe what {agent_id} does, and how it answers.\n")
        source = SourceText(text)
        problems, _ = validate_agent_file(source, read_yaml(source).root)
        if not any(problem.severity is Severity.ERROR for problem in problems):
            return text
    raise AssertionError("the default agent skeleton must be valid")


def _inline_models(workflow: Workflow) -> Iterator[tuple[str, str]]:
    for agent in workflow.agents:
        named = [agent.mapping.get(key) for key in ("provider", "model")]
        values = [entry.value.value for entry in named if entry is not None
                  and isinstance(entry.value, YScalar) and isinstance(entry.value.value, str)
                  and entry.value.value]
        if len(values) == 2 and not agent.is_ref:
            yield str(values[0]), str(values[1])
            return


def _create_agent(ctx: RuleContext, agent_id: str) -> tuple[Fix, ...]:
    resolution = ctx.resolution
    project = ctx.workspace.project_of(ctx.path) if ctx.workspace and ctx.path else None
    if resolution is None or project is None or not KEBAB.match(agent_id):
        return ()
    folder = os.path.join(project, PROJECT_FOLDER)
    name = f"{agent_id}.agent.yaml"
    if os.path.lexists(os.path.join(folder, "agents", name)):
        return ()
    created = NewFile(folder, ("agents",), name, agent_skeleton(agent_id, ctx.workflow))
    return (Fix(f"Create agent `{agent_id}` in {PROJECT_FOLDER}/agents/{name}", (), False,
                (created,)),)


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
            fixes=(*change_name(ctx.source, ref.span, ref.id, suggestions.closest(ref.id)),
                   *_create_agent(ctx, ref.id)),
        )
