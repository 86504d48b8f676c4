"""unknown-node: an edge end, handle source, `target_node`, `default` or `parallel_of` member
that names no node."""

from collections.abc import Container, Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.model import NodeDef, NodeRef
from analysis.naming import did_you_mean
from analysis.rules import RuleContext

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
        if edge.to is not None and edge.to.id not in known:
            yield f"edges[{edge.index}].to", edge.to.id, edge.to.span
    for node in ctx.nodes_of("condition"):
        refs = [(f"branches[{branch.index}].target_node", branch.target)
                for branch in node.branches]
        refs.append(("default", node.default))
        yield from _unknown_fields(node, refs, known)
    for node in ctx.nodes_of("parallel"):
        yield from _unknown_fields(
            node, [(f"parallel_of[{index}]", ref) for index, ref in enumerate(node.parallel_of)],
            known)


def _unknown_fields(
    node: NodeDef, refs: list[tuple[str, NodeRef | None]], known: Container[str]
) -> Iterator[tuple[str, str, tuple[int, int]]]:
    for field, ref in refs:
        if ref is not None and ref.id not in known:
            label = f"node '{node.id}'" if node.id else f"nodes[{node.index}]"
            yield f"{label} {field}", ref.id, ref.span


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    known = ctx.workflow.nodes_by_id
    for where, node_id, span in _unknown_references(ctx, known):
        hint, data = did_you_mean(node_id, known)
        yield ctx.diagnostic(
            RULE_ID, SEVERITY, *span,
            f"{where} names node '{node_id}', which does not exist{hint}; use the id of a "
            "node in this workflow",
            {"name": node_id, **data},
        )
