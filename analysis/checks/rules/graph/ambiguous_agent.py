"""ambiguous-agent: two agent definitions a workflow resolves share an id.

Judged only with a workspace index (`RuleContext.resolution`). The engine keys the agents a plan
can use by id, the inline ones first, and the host registry fills only ids no inline agent has
(packages/core/src/dag.ts `resolveAgents`, HodeTech/Relavium 839f2bd), one agent per id. So:

- a `$ref` file whose id an inline agent also has is never used (reported at the `$ref`);
- a `$ref` file whose id another `$ref` file or an agent file of the project's `.relavium/`
  also has leaves which one a run uses undefined (reported at the `$ref`);
- two agent files of the project with the id an `agent_ref` names (and no inline agent or
  `$ref` has) leave that node's agent undefined (reported at the `agent_ref`).

An inline agent with the id of a project-folder agent is not reported: the workflow overrides the
project's agent, as the engine's order says. A warning: the workflow loads, but some agent is not
the one its author meant."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.rules.graph.unresolved_agent_file import shown_path
from analysis.diagnostics import Diagnostic, Severity

RULE_ID = "ambiguous-agent"
SEVERITY = Severity.WARNING
SUMMARY = "Two agent definitions the workflow resolves share an id (one is never used)."


def _where(ctx: RuleContext, index: int, path: str) -> str:
    return f"agents[{index}]: the agent file '{shown_path(ctx, path)}'"


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    resolution = ctx.resolution
    if resolution is None:
        return
    inline = ctx.workflow.agents_by_id
    from_refs: set[str] = set()
    for ref in resolution.refs:
        agent = ref.file.agent
        if agent is None:
            continue
        from_refs.add(agent.id)
        if agent.id in inline:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *ref.value.span,
                f"{_where(ctx, ref.decl.index, agent.path)} defines agent '{agent.id}', which an "
                "inline agent of this workflow also defines; inline agents come first, so this "
                "$ref is never used: remove it or rename one",
                {"agent": agent.id, "path": agent.path},
                related=[(*inline[agent.id].mapping.span, "the inline agent")])
            continue
        others = [other.path for other in resolution.agents_named(agent.id)
                  if other.path != agent.path]
        if others:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *ref.value.span,
                f"{_where(ctx, ref.decl.index, agent.path)} defines agent '{agent.id}', as "
                f"'{shown_path(ctx, others[0])}' does: "
                "which one a run uses is not defined; rename one of them",
                {"agent": agent.id, "path": agent.path, "others": others})
    for node in ctx.nodes_of("agent"):
        name = node.agent_ref
        if name is None or name.id in inline or name.id in from_refs:
            continue
        files = [agent.path for agent in resolution.folder_by_id.get(name.id, ())]
        if len(files) > 1:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *name.span,
                f"node '{node.id}': agent '{name.id}' is defined by "
                f"{len(files)} agent files of the project's .relavium/ "
                f"('{shown_path(ctx, files[0])}', '{shown_path(ctx, files[1])}'): which one a "
                "run uses is not defined; rename one of them",
                {"agent": name.id, "others": files})
