"""invalid-parallel-edge: an edge out of a `parallel` node to a node not in its `parallel_of`."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.model import NodeDef

RULE_ID = "invalid-parallel-edge"
SEVERITY = Severity.ERROR
SUMMARY = "An edge out of a parallel node must go to one of its parallel_of members."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    nodes = ctx.workflow.nodes_by_id
    # each parallel's members once, not per edge (a parallel of n members with an edge to each
    # made n² work)
    members_of: dict[NodeDef, tuple[list[str], set[str]]] = {}
    for edge, node in ctx.edges_from("parallel"):
        if edge.to is None:
            continue
        if node not in members_of:
            listed = [member.id for member in node.parallel_of]
            members_of[node] = (listed, set(listed))
        members, member_set = members_of[node]
        if edge.to.id in nodes and edge.to.id not in member_set:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *edge.to.span,
                f"edges[{edge.index}]: parallel node '{node.id}' only leads to its parallel_of "
                f"members ({', '.join(members) or 'none'}); add '{edge.to.id}' to parallel_of "
                "or draw this edge from another node",
            )
