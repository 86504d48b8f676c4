"""unknown-node: an edge end, handle source, `target_node`, `default` or `parallel_of` member
that names no node."""

from collections.abc import Container, Iterator

from analysis.checks.context import RuleContext
from analysis.checks.fixes import change_name
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.model import NodeDef
from analysis.naming import Suggestions

RULE_ID = "unknown-node"
SEVERITY = Severity.ERROR
SUMMARY = "A reference to a node id that does not exist."


def _unknown_references(
    ctx: RuleContext, known: Container[str]
) -> Iterator[tuple[str, str, tuple[int, int]]]:
    """(where, node id, span of it) for every node reference outside templates that names no
    node in `known`. A known one costs only the look-up: most references are known, and naming
    where each is would cost as much as the rest of the rule."""
    for edge in ctx.workflow.edges:
        source = edge.source or ""
        if edge.from_field is not None and source not in known:
            # `from: ':handle'` names no node id at all: the whole value is the span
            span = edge.source_span() if source else edge.from_field.scalar.span
            yield f"edges[{edge.index}].from", source, span
        to = edge.to
        if to is not None and to.id not in known:
            yield f"edges[{edge.index}].to", to.id, to.span
    for node in ctx.nodes_of("condition"):
        for branch in node.branches:
            target = branch.target
            if target is not None and target.id not in known:
                yield _where(node, f"branches[{branch.index}].target_node"), target.id, target.span
        if node.default is not None and node.default.id not in known:
            yield _where(node, "default"), node.default.id, node.default.span
    for node in ctx.nodes_of("parallel"):
        for index, member in enumerate(node.parallel_of):
            if member.id not in known:
                yield _where(node, f"parallel_of[{index}]"), member.id, member.span


def _where(node: NodeDef, field: str) -> str:
    label = f"node '{node.id}'" if node.id else f"nodes[{node.index}]"
    return f"{label} {field}"


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    known = ctx.workflow.nodes_by_id
    suggestions = Suggestions(known)
    for where, node_id, span in _unknown_references(ctx, known):
        hint, data = suggestions.did_you_mean(node_id)
        yield ctx.diagnostic(
            RULE_ID, SEVERITY, *span,
            f"{where} names node '{node_id}', which does not exist{hint}; use the id of a "
            "node in this workflow",
            {"name": node_id, **data},
            fixes=change_name(ctx.source, span, node_id, suggestions.closest(node_id)),
        )
