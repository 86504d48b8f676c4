"""unknown-node: an edge end, handle source, `target_node`, `default` or `parallel_of` member
that names no node."""

from collections.abc import Callable, Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.model import NodeRef
from analysis.naming import did_you_mean
from analysis.rules import RuleContext

RULE_ID = "unknown-node"
SEVERITY = Severity.ERROR
SUMMARY = "A reference to a node id that does not exist."


def _references(ctx: RuleContext) -> Iterator[tuple[str, str, Callable[[], tuple[int, int]]]]:
    """(where, node id, span of it) for every node reference outside templates."""
    for edge in ctx.workflow.edges:
        if edge.from_field is not None and edge.source:
            yield f"edges[{edge.index}].from", edge.source, edge.source_span
        elif edge.from_field is not None:  # `from: ':handle'`: no node id at all
            yield f"edges[{edge.index}].from", "", _span_of(NodeRef("", edge.from_field.scalar))
        if edge.to is not None:
            yield f"edges[{edge.index}].to", edge.to.id, _span_of(edge.to)
    for node in ctx.workflow.nodes:
        label = f"node '{node.id}'" if node.id else f"nodes[{node.index}]"
        for branch in node.branches if node.type == "condition" else ():
            if branch.target is not None:
                yield (f"{label} branches[{branch.index}].target_node", branch.target.id,
                       _span_of(branch.target))
        if node.type == "condition" and node.default is not None:
            yield f"{label} default", node.default.id, _span_of(node.default)
        for index, member in enumerate(node.parallel_of if node.type == "parallel" else ()):
            yield f"{label} parallel_of[{index}]", member.id, _span_of(member)


def _span_of(ref: NodeRef) -> Callable[[], tuple[int, int]]:
    return lambda: ref.span


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    known = ctx.workflow.nodes_by_id
    for where, node_id, span_of in _references(ctx):
        if node_id in known:
            continue
        hint, data = did_you_mean(node_id, known)
        yield ctx.diagnostic(
            RULE_ID, SEVERITY, *span_of(),
            f"{where} names node '{node_id}', which does not exist{hint}; use the id of a "
            "node in this workflow",
            {"name": node_id, **data},
        )
