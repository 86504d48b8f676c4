"""unreachable-node: a node that no edge leads to, in a workflow that starts at input nodes.

Such a node does not follow the input node(s): it starts as soon as the run does, usually
because an edge was forgotten. Only the first node of such a detached chain is reported (its
successors are reached from it). Checked only when the workflow has `input` nodes."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity

RULE_ID = "unreachable-node"
SEVERITY = Severity.WARNING
SUMMARY = "A node no edge leads to: it does not follow the input node (a forgotten edge?)."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    nodes = ctx.workflow.nodes_by_id
    entries = [node.id for node in ctx.nodes_of("input")
               if node.id is not None and nodes[node.id] is node]
    if not entries:
        return
    predecessors = ctx.graph.predecessors
    for node_id, node in nodes.items():
        if node.type == "input" or predecessors.get(node_id) or node.id_ref is None:
            continue
        yield ctx.diagnostic(
            RULE_ID, SEVERITY, *node.id_ref.span,
            f"node '{node_id}' has no incoming edge, so it does not follow the input node"
            f"{'s' if len(entries) > 1 else ''} ({', '.join(entries)}) and starts as soon as the "
            "run does; add an edge leading to it (or remove it)",
            {"entries": entries},
        )
