"""unreachable-node: a node that no edge leads to, in a workflow that starts at input nodes.

Such a node does not follow the input node(s): it starts as soon as the run does, usually
because an edge was forgotten. Only the first node of such a detached chain is reported (its
successors are reached from it). Checked only when the workflow has `input` nodes.

"Remove unreachable node" deletes the node's list item, offered only when its id is written
nowhere else in the file (no edge, `parallel_of`, branch target or `run.outputs` read names it,
which the removal would leave dangling): so a chain's first node, which has outgoing edges, gets
none. Not safe to apply unasked: the author may have meant to add the edge instead."""

import re
from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Fix, Severity
from analysis.document.edits import fix, remove_item
from analysis.document.model import NodeDef
from analysis.document.yaml_nodes import YSequence

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
            fixes=_removal(ctx, node_id, node),
        )


def _removal(ctx: RuleContext, node_id: str, node: NodeDef) -> tuple[Fix, ...]:
    text = ctx.source.text
    named = re.finditer(rf"(?<![\w-]){re.escape(node_id)}(?![\w-])", text)
    if sum(1 for _ in named) != 1:
        return ()
    body = ctx.workflow.body
    entry = body.get("nodes") if body is not None else None
    if entry is None or not isinstance(entry.value, YSequence):
        return ()
    removed = remove_item(text, entry.value, node.mapping)
    if removed is None:
        return ()
    return (fix(ctx.source, f"Remove unreachable node '{node_id}'", [removed], safe=False),)
