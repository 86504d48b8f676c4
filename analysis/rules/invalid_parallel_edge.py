"""invalid-parallel-edge: an edge out of a `parallel` node to a node not in its `parallel_of`."""

from collections.abc import Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.rules import RuleContext

RULE_ID = "invalid-parallel-edge"
SEVERITY = Severity.ERROR
SUMMARY = "An edge out of a parallel node must go to one of its parallel_of members."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    nodes = ctx.workflow.nodes_by_id
    # each parallel's members once, not per edge (a parallel of n members with an edge to each
    # made n² work)
    members_of: dict[str, tuple[list[str], set[str]]] = {}
    for edge in ctx.workflow.edges:
        source = edge.source or ""
        node = nodes.get(source)
        if node is None or node.type != "parallel" or edge.to is None:
            continue
        if source not in members_of:
            listed = [member.id for member in node.parallel_of]
            members_of[source] = (listed, set(listed))
        members, member_set = members_of[source]
        if edge.to.id in nodes and edge.to.id not in member_set:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *edge.to.span,
                f"edges[{edge.index}]: parallel node '{node.id}' only leads to its parallel_of "
                f"members ({', '.join(members) or 'none'}); add '{edge.to.id}' to parallel_of "
                "or draw this edge from another node",
            )
