"""admission-limit: the workflow is past one of the engine's counted admission ceilings (ADR-0086
§2): more than 500 nodes, more than 2,000 edges, or a node leading to more than 50 distinct
nodes. The engine refuses the file when it loads; it never clamps.

One rule for the three: they are one engine check (`collectWorkflowCeilingIssues` in the newest
`packages/core/src/limits.ts`) with one cause and one kind of fix, and not thresholds a project
would tune or silence one by one (the engine refuses the file either way). The per-field
ceilings (`retry.max`, `max_attempts`, `fallback_chain`, `max_parallel`) are schema bounds
(`analysis.schema.ceilings`), reported as invalid-value.

Counted as that function counts, on the authored file:
- nodes: every item of `nodes`;
- edges: every item of `edges`, every `parallel_of` member, every condition branch and its
  `default`, and every `{{ run.outputs["id"] }}` reference to an existing node in the fields that
  wire data edges (an agent node's templates and its resolved agent's `system_prompt`, a gate's);
- fan-out: per node, the distinct targets of its `edges`, its `parallel_of` members and the
  nodes whose templates read it; a condition's branches are alternatives and do not count.
An agent defined in another file (`$ref`, the registry) is not seen here, so its system prompt's
references are not counted: the count is then a lower bound, never an overcount.
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.schema.ceilings import EDGES, FAN_OUT, NODES

RULE_ID = "admission-limit"
SEVERITY = Severity.ERROR
SUMMARY = ("More than 500 nodes, 2,000 edges or 50 targets of one node: the engine refuses the "
           "workflow.")


def _nodes(ctx: RuleContext) -> Iterator[Diagnostic]:
    nodes = ctx.workflow.nodes
    if len(nodes) <= NODES:
        return
    first_extra = nodes[NODES]
    span = first_extra.id_ref.span if first_extra.id_ref else (
        first_extra.mapping.start, first_extra.mapping.start + 1)
    yield ctx.diagnostic(
        RULE_ID, SEVERITY, *span,
        f"this is node {NODES + 1} of {len(nodes)}: the engine refuses a workflow of more than "
        f"{NODES} nodes when it loads; remove {len(nodes) - NODES} or split the workflow in two",
        {"ceiling": NODES, "count": len(nodes)},
    )


def _edges(ctx: RuleContext) -> Iterator[Diagnostic]:
    workflow = ctx.workflow
    members = sum(len(node.parallel_of) for node in ctx.nodes_of("parallel"))
    routes = sum(len(node.branches) + (node.entry("default") is not None)
                 for node in ctx.nodes_of("condition"))
    written = len(workflow.edges)
    # cheap first: the data edges are only counted when the rest leaves them room to matter
    if written + members + routes + len(ctx.graph.edges) <= EDGES:
        return
    data = sum(edge.kind == "data" for edge in ctx.graph.edges)
    total = written + members + routes + data
    entry = workflow.body.get("edges") if workflow.body is not None else None
    if total <= EDGES or entry is None:
        return
    yield ctx.diagnostic(
        RULE_ID, SEVERITY, entry.key.start, entry.key.end,
        f"the workflow wires {total} edges ({written} in edges, {members} parallel_of members, "
        f"{routes} condition branches and defaults, {data} run.outputs references): the engine "
        f"refuses more than {EDGES} when it loads; remove {total - EDGES} or split the workflow "
        "in two",
        {"ceiling": EDGES, "count": total},
    )


def _fan_out(ctx: RuleContext) -> Iterator[Diagnostic]:
    targets: dict[str, set[str]] = {}
    for node in ctx.nodes_of("parallel"):
        if node.id is not None:
            targets.setdefault(node.id, set()).update(member.id for member in node.parallel_of)
    for edge in ctx.workflow.edges:
        if edge.source is not None and edge.to is not None:
            targets.setdefault(edge.source, set()).add(edge.to.id)
    for link in ctx.graph.edges:
        if link.kind == "data":
            targets.setdefault(link.source, set()).add(link.target)
    nodes = ctx.workflow.nodes_by_id
    for node_id, reached in targets.items():
        producer = nodes.get(node_id)
        # a source that is no node is unknown-node's (and the file is refused for it anyway)
        if len(reached) <= FAN_OUT or producer is None or producer.id_ref is None:
            continue
        yield ctx.diagnostic(
            RULE_ID, SEVERITY, *producer.id_ref.span,
            f"node '{node_id}' leads to {len(reached)} distinct nodes (its edges, parallel_of "
            f"members and the nodes reading its output): the engine refuses a fan-out wider than "
            f"{FAN_OUT} when it loads; split them across two or more nodes",
            {"ceiling": FAN_OUT, "count": len(reached)},
        )


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    yield from _nodes(ctx)
    yield from _edges(ctx)
    yield from _fan_out(ctx)
