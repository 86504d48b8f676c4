"""Which nodes each condition branch gates, and the edges that let a gated node run anyway.

The engine's run loop (packages/core/src/engine/engine.ts `#hasLiveEdge` / `#propagateSkips`,
the same at HodeTech/Relavium 839f2bd and 717bc97) dispatches a node once all its dependencies
settled and at least one is a live in-edge: a completed non-condition dependency, or a completed
condition whose one selected target (node-handlers/condition.ts: the first branch whose `when`
equals the result, else `default`) is this node. A node whose in-edges are all dead is skipped,
to a fixpoint. Dependencies are every graph edge, template data edges included (dag.ts
`wireOwnDataEdges`), so one read of a node that completes either way keeps a branch's node live.

Contract: `branch_gates(graph)` → one `BranchGate` per condition and distinct target (the
branches selecting the same target are one gate), for targets the condition can route away from
and that are not a join (a node following the condition on another path leads to the target
too); empty when the graph has a cycle (the engine refuses it). A gate's `gated` nodes are the
ones the wiring means to run only on that branch: the target, and every node whose control
in-edges (explicit, condition, parallel; not data) all come from gated nodes. `bypasses` are the
in-edges of gated nodes from outside them that surely carry a live edge on a run where the
condition completed and routed away from the target, and `runs_anyway` the gated nodes that then
surely run.
"Surely": the condition's dominators completed (every path to it passes them), roots run, and
any other condition's choice is unknown, so what hangs on it is neither live nor dead.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from analysis.document.graph import Graph, GraphEdge

CONTROL_EDGES = frozenset({"explicit", "condition", "parallel"})


class _State(Enum):
    RUNS = "runs"
    SKIPPED = "skipped"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class BranchGate:
    condition: str
    handles: tuple[str, ...]  # the `when` handles selecting the target, "default" for default
    target: str
    gated: frozenset[str]
    bypasses: tuple[GraphEdge, ...]
    runs_anyway: frozenset[str]

    @property
    def label(self) -> str:
        """`route:urgent` (`route:normal|default` when several branches select the target)."""
        return f"{self.condition}:{'|'.join(self.handles)}"


def branch_gates(graph: Graph) -> list[BranchGate]:
    if graph.cycle is not None:
        return []
    order = _topological(graph)
    dominators = _dominators(graph, order)
    targets = _condition_targets(graph)
    control_sources = _control_sources(graph)
    gates: list[BranchGate] = []
    for condition, by_target in targets.items():
        if len(by_target) < 2:
            continue  # the condition always selects its one target
        for target, handles in by_target.items():
            gated = _gated(graph, order, target, condition, control_sources)
            if not gated:
                continue
            states = _states_routed_away(graph, order, targets, condition, target,
                                         dominators[condition])
            bypasses = tuple(
                edge for edge in graph.edges
                if edge.target in gated and edge.source not in gated
                and _edge(edge.source, edge.target, states, targets, condition, target)
                is _State.RUNS
            )
            runs_anyway = frozenset(node for node in gated if states[node] is _State.RUNS)
            gates.append(BranchGate(condition, tuple(handles), target, gated, bypasses,
                                    runs_anyway))
    return gates


def _topological(graph: Graph) -> list[str]:
    """Kahn's order, authored position breaking ties (acyclic graphs only)."""
    pending = {node: len(graph.predecessors.get(node, ())) for node in graph.node_ids}
    ready = [node for node in graph.node_ids if pending[node] == 0]
    order: list[str] = []
    while ready:
        node = ready.pop(0)
        order.append(node)
        for child in graph.successors.get(node, ()):
            pending[child] -= 1
            if pending[child] == 0:
                ready.append(child)
    return order


def _dominators(graph: Graph, order: list[str]) -> dict[str, frozenset[str]]:
    """Each node's dominators (itself included): the nodes on every path from a root to it,
    so the ones that completed whenever it was dispatched."""
    result: dict[str, frozenset[str]] = {}
    for node in order:
        parents = graph.predecessors.get(node, ())
        common = frozenset.intersection(*(result[p] for p in parents)) if parents else frozenset()
        result[node] = common | {node}
    return result


def _condition_targets(graph: Graph) -> dict[str, dict[str, list[str]]]:
    """Each condition's selectable targets (existing nodes), each with the handles selecting it,
    in authored order."""
    nodes = graph.workflow.nodes_by_id
    result: dict[str, dict[str, list[str]]] = {}
    for node_id, node in nodes.items():
        if node.type != "condition":
            continue
        by_target: dict[str, list[str]] = {}
        for branch in node.branches:
            if branch.target is not None and branch.target.id in nodes:
                by_target.setdefault(branch.target.id, []).append(branch.handle or "?")
        if node.default is not None and node.default.id in nodes:
            by_target.setdefault(node.default.id, []).append("default")
        result[node_id] = by_target
    return result


def _control_sources(graph: Graph) -> dict[str, set[str]]:
    sources: dict[str, set[str]] = {}
    for edge in graph.edges:
        if edge.kind in CONTROL_EDGES:
            sources.setdefault(edge.target, set()).add(edge.source)
    return sources


def _gated(graph: Graph, order: list[str], target: str, condition: str,
           control_sources: dict[str, set[str]]) -> frozenset[str]:
    """The target and what only it leads to; nothing when a node following the condition on
    another path also leads to the target (the branches join there, as the author wired it)."""
    if any(source != condition and condition in graph.ancestors(source)
           for source in control_sources.get(target, ())):
        return frozenset()
    gated = {target}
    for node in order[order.index(target) + 1:]:
        sources = control_sources.get(node)
        if node != condition and sources and sources <= gated:
            gated.add(node)
    return frozenset(gated)


def _states_routed_away(graph: Graph, order: list[str], targets: dict[str, dict[str, list[str]]],
                        condition: str, target: str,
                        completed: frozenset[str]) -> dict[str, _State]:
    """Each node's fate on a run where `condition` completed and did not select `target`."""
    states: dict[str, _State] = {}
    for node in order:
        parents = graph.predecessors.get(node, ())
        if node in completed or not parents:
            states[node] = _State.RUNS
            continue
        edges = [_edge(parent, node, states, targets, condition, target) for parent in parents]
        states[node] = _fold(edges)
    return states


def _fold(edges: Iterable[_State]) -> _State:
    """A node with these in-edges: runs if one is surely live, skipped if all are dead."""
    seen = set(edges)
    if _State.RUNS in seen:
        return _State.RUNS
    return _State.SKIPPED if seen == {_State.SKIPPED} else _State.UNKNOWN


def _edge(source: str, node: str, states: dict[str, _State],
          targets: dict[str, dict[str, list[str]]], condition: str, target: str) -> _State:
    """Whether the in-edge `source → node` is live (RUNS), dead (SKIPPED) or unknown."""
    state = states[source]
    if state is not _State.RUNS or source not in targets:
        return state
    selectable = set(targets[source])
    if source == condition:
        selectable.discard(target)
    if node not in selectable:
        return _State.SKIPPED  # the condition never selects it here
    return _State.RUNS if selectable == {node} else _State.UNKNOWN
