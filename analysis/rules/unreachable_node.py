"""unreachable-node: a node that no path from the workflow's input node(s) reaches (warning).

Only checked when the workflow has `input` nodes (they mark where a run starts) and no cycle."""

from collections.abc import Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.rules import RuleContext

RULE_ID = "unreachable-node"
SEVERITY = Severity.WARNING
SUMMARY = "A node no path from an input node reaches: it is probably missing an edge."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    graph = ctx.graph
    nodes = ctx.workflow.nodes_by_id
    entries = [node_id for node_id, node in nodes.items() if node.type == "input"]
    if not entries or graph.cycle is not None:
        return
    reached = set(entries)
    stack = list(entries)
    while stack:
        for child in graph.successors.get(stack.pop(), ()):
            if child not in reached:
                reached.add(child)
                stack.append(child)
    for node_id, node in nodes.items():
        if node_id not in reached and node.id_ref is not None:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *node.id_ref.span,
                f"node '{node_id}' is not reachable from the input node"
                f"{'s' if len(entries) > 1 else ''} ({', '.join(entries)}); add an edge "
                "leading to it or remove it",
            )
