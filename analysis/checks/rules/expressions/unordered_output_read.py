"""unordered-output-read: an expression reads `run.outputs` of a node it is not ordered after.

At run time `run.outputs` holds only the reading node's transitive ancestors (ADR-0093), so such
a read is `undefined`. When the engine's own parse-time scan sees the read, the engine refuses the
workflow (error); when only a syntax tree sees it, the workflow loads and the read silently yields
`undefined` (warning). Skipped when the graph has a cycle, as the engine skips it.

The graph here cannot see the system prompt of an agent defined in another file (`$ref` or a
workspace agent), and such a prompt's `{{ run.outputs["id"] }}` adds a data edge. A read is
therefore reported only when no such hidden edge could order the target before the reader.
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.expression_sites import ExpressionSite, output_access
from analysis.diagnostics import Diagnostic, Fix, Severity
from analysis.document.edits import append_item, fix, flow_scalar, newline_of
from analysis.document.expressions import OutputRead, ReadGrade
from analysis.document.graph import Graph
from analysis.document.yaml_nodes import YSequence

RULE_ID = "unordered-output-read"
SEVERITY = Severity.ERROR
SUMMARY = "An expression reads run.outputs of a node that is not one of its ancestors."


def _message(site: ExpressionSite, read: OutputRead, reader: str, graph: Graph) -> str:
    target = read.node_id
    if target == reader:
        problem = f"reads its own output `{output_access(target)}`, which never exists"
        fix = "read an upstream node's output instead"
    elif reader in graph.ancestors(target):
        # An ordering edge would close a cycle: the fix is to move the read, not add an edge.
        problem = f"reads `{output_access(target)}`, but `{target}` runs after `{reader}`"
        fix = f"move the read to a node downstream of `{target}`"
    else:
        problem = (
            f"reads `{output_access(target)}`, but `{target}` is not an ancestor of `{reader}`"
        )
        fix = f"add an edge from `{target}` to `{reader}` (or a path through other nodes)"
    if read.grade is ReadGrade.ENGINE:
        outcome = "the engine refuses this workflow"
    else:
        outcome = (
            "the engine's parse-time scan does not see this read, so the workflow loads but the "
            "value is `undefined` when the node runs"
        )
    return f"{site.label} {problem}: {outcome}. To fix, {fix}."


def _opaque_agent_nodes(ctx: RuleContext) -> frozenset[str]:
    """Agent nodes whose agent's system prompt lives in another file (unknown data edges)."""
    return frozenset(
        node.id
        for node in ctx.nodes_of("agent")
        if node.id is not None
        and ((agent := ctx.workflow.agent_for(node)) is None or agent.is_ref)
    )


def _could_be_ordered_unseen(
    graph: Graph, opaque: frozenset[str], reader: str, target: str
) -> bool:
    """Could an unseen prompt edge `target → agent` (agent upstream of the reader) order the
    target first? Only if that edge would not close a cycle."""
    return any(
        agent != target and agent not in graph.ancestors(target)
        for agent in opaque & graph.ancestors(reader)
    )


def _newline(ctx: RuleContext) -> str:
    return newline_of(ctx.source.text)


def _ordering_edge(ctx: RuleContext, reader: str, target: str) -> tuple[Fix, ...]:
    """Add the edge `target → reader` to `edges` — unless it closes a cycle (`reader` already
    precedes `target`) or there is no edges list to add it to. Not safe: moving the read is the
    other answer."""
    if reader == target or reader in ctx.graph.ancestors(target):
        return ()
    body = ctx.workflow.body
    entry = body.get("edges") if body is not None else None
    if entry is None or not isinstance(entry.value, YSequence):
        return ()
    edge = f"{{ from: {flow_scalar(target)}, to: {flow_scalar(reader)} }}"
    insertion = append_item(ctx.source.text, entry.value, edge, ctx.shared(_newline))
    return (fix(ctx.source, f"Add an edge from {target} to {reader}", [insertion], safe=False),)


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    graph = ctx.graph
    if graph.cycle is not None:
        return
    nodes = ctx.workflow.nodes_by_id
    opaque: frozenset[str] | None = None  # looked for once a read is not ordered
    for site in ctx.expression_sites:
        reads = site.facts.output_reads
        reader = site.node.id
        if not reads or reader is None or nodes.get(reader) is not site.node:
            continue  # no id, or a duplicate id: the duplicate-id report comes first
        ancestors = graph.ancestors(reader)
        for read in reads:
            if read.node_id in ancestors:
                continue  # ordered before the reader: the common case
            target = nodes.get(read.node_id)
            if target is None:
                continue  # not a node: unknown-output-reference
            if read.node_id != reader:
                if opaque is None:
                    opaque = _opaque_agent_nodes(ctx)
                if _could_be_ordered_unseen(graph, opaque, reader, read.node_id):
                    continue
            related = (
                [(*target.id_ref.span, f"node `{read.node_id}` is declared here")]
                if target.id_ref is not None
                else []
            )
            yield site.diagnostic(
                ctx,
                RULE_ID,
                SEVERITY if read.grade is ReadGrade.ENGINE else Severity.WARNING,
                read.access,
                _message(site, read, reader, graph),
                data={
                    "reader": reader,
                    "target": read.node_id,
                    "field": site.field.name,
                    "grade": read.grade.value,
                    "form": read.form.value,
                },
                related=related,
                fixes=_ordering_edge(ctx, reader, read.node_id),
            )
