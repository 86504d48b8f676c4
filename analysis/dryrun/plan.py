"""The engine's run plan as a dry run needs it: the order nodes are claimed in and how many at
once (packages/core/src/dag.ts `kahnOrder`, engine.ts `#claimReady`), and the run's dispatch
limit (ADR-0086 §3-4, packages/core/src/limits.ts)."""

from __future__ import annotations

import heapq

from analysis.document.graph import Graph
from analysis.document.model import Workflow
from analysis.document.yaml_nodes import plain_value

# ADR-0086 §3-4 (limits.ts ADMISSION_CEILINGS, DEFAULT_MAX_PARALLEL): the concurrency cap when
# `max_parallel` is omitted, and the node starts one run may make before it fails `turn_limit`
DEFAULT_MAX_PARALLEL = 8
NODE_DISPATCHES_PER_RUN = 500
DISPATCH_LIMIT = {
    "code": "turn_limit",
    "message": f"the run reached its limit of {NODE_DISPATCHES_PER_RUN} node dispatches",
    "retryable": False,
}


def plan_order(workflow: Workflow, graph: Graph) -> list[str]:
    """The engine's plan order: Kahn's algorithm, the authored-first ready node next."""
    authored = graph.positions
    remaining = {node_id: len(graph.predecessors.get(node_id, ())) for node_id in graph.node_ids}
    ready = [(authored[node_id], node_id) for node_id in graph.node_ids
             if remaining[node_id] == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, node_id = heapq.heappop(ready)
        order.append(node_id)
        for child in graph.successors.get(node_id, ()):
            remaining[child] -= 1
            if remaining[child] == 0:
                heapq.heappush(ready, (authored[child], child))
    return order


def max_parallel(workflow: Workflow) -> int:
    """The workflow's `max_parallel`, the run loop's cap on nodes in flight (of any type: the
    engine's `#claimReady` counts every running vertex, though the documents say LLM calls);
    omitted, 8 (ADR-0086 §3, limits.ts DEFAULT_MAX_PARALLEL; the July snapshot was uncapped).
    An invalid one (the engine refuses the workflow) runs as if omitted; one above the ceiling
    of 64 (refused too, never clamped) as authored."""
    entry = workflow.body.get("max_parallel") if workflow.body is not None else None
    value = plain_value(entry.value) if entry is not None else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return DEFAULT_MAX_PARALLEL
    return int(value) if float(value).is_integer() and value >= 1 else DEFAULT_MAX_PARALLEL
