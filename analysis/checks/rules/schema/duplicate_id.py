"""duplicate-id: two nodes (or inputs, context entries, agents) share an id or name, or a
parallel node lists one member twice."""

from collections.abc import Iterable, Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.model import NodeRef

RULE_ID = "duplicate-id"
SEVERITY = Severity.ERROR
SUMMARY = ("Two nodes, inputs, context entries or agents share the same id, or a parallel_of "
           "lists a member twice.")


def _duplicates(
    ctx: RuleContext, what: str, refs: Iterable[NodeRef | None],
    fix: str = "must be unique: rename one of them",
) -> Iterator[Diagnostic]:
    first: dict[str, NodeRef] = {}
    for ref in refs:
        if ref is None:
            continue
        if ref.id not in first:
            first[ref.id] = ref
            continue
        original = first[ref.id]
        line = ctx.source.position(original.scalar.start).line + 1
        yield ctx.diagnostic(
            RULE_ID, SEVERITY, *ref.span,
            f"{what} '{ref.id}' is already used on line {line}; {what}s {fix}",
            {"id": ref.id},
            [(*original.span, f"first {what} '{ref.id}'")],
        )


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    workflow = ctx.workflow
    node_ids = [node.id_ref for node in workflow.nodes if node.id_ref is not None]
    if len(node_ids) != len(workflow.nodes_by_id):  # which holds the first node of each id
        yield from _duplicates(ctx, "node id", node_ids)
    yield from _duplicates(ctx, "input name", (decl.name_ref for decl in workflow.inputs))
    yield from _duplicates(ctx, "context key", (entry.key_ref for entry in workflow.context))
    yield from _duplicates(ctx, "agent id", (agent.id_ref for agent in workflow.agents))
    # The newest engine refuses a repeated member at parse (ADR-0091, correction of 2026-09-03):
    # it would run once yet enter a merge's branches twice.
    for node in ctx.nodes_of("parallel"):
        members = node.parallel_of
        if len(members) != len({member.id for member in members}):
            yield from _duplicates(
                ctx, "parallel_of member", members,
                "run once each: remove the repeat (the engine refuses the file)")
