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
surely run. `leaks(graph)` → one `Leak` per bypassing edge, with the innermost branch it
bypasses (nested conditions gate the same node) and the enclosing ones: what the leaked-branch
rule reports and the workflow graph draws in red. `gates_by_node(graph)` → each gated node's
gates, outermost first: what hover says and the graph tints.
`gates_taken_over(graph, earlier)` → `branch_gates(graph)` and a `GatingMemo` for the next
version: an earlier version's gates are taken over when everything they are derived from is equal
(`GatingMemo.key`), their bypassing edges placed at the new version's edges.
"Surely": the condition's dominators completed (every path to it passes them), roots run, and
any other condition's choice is unknown, so what hangs on it is neither live nor dead.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property

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


@dataclass(frozen=True)
class Leak:
    edge: GraphEdge
    gate: BranchGate  # the innermost branch the edge bypasses
    enclosing: tuple[BranchGate, ...]  # the other branches it bypasses, innermost first


@dataclass(frozen=True)
class GatingMemo:
    """One graph's gates, kept for the next version by content alone: `key` is everything
    `branch_gates` reads (`_shape`), each gate is kept without its bypassing edges (they point
    into one version's text) and with their places in `graph.edges` instead."""

    key: tuple[object, ...]
    gates: tuple[tuple[BranchGate, tuple[int, ...]], ...]


def gates_taken_over(graph: Graph, earlier: GatingMemo | None
                     ) -> tuple[list[BranchGate], GatingMemo]:
    """`branch_gates(graph)`, taken over from `earlier` (an earlier version's memo) when its key
    is this graph's: a keystroke inside an expression changes none of it (9–17 ms at 1,000
    nodes to derive again)."""
    key = _shape(graph)
    if earlier is not None and earlier.key == key:
        memo = earlier
    else:
        place = {id(edge): index for index, edge in enumerate(graph.edges)}
        memo = GatingMemo(key, tuple(
            (replace(gate, bypasses=()), tuple(place[id(edge)] for edge in gate.bypasses))
            for gate in branch_gates(graph)))
    edges = graph.edges
    # a gate nothing bypasses holds no edge: the memo's own object serves every version
    return [replace(gate, bypasses=tuple(edges[index] for index in places)) if places else gate
            for gate, places in memo.gates], memo


def _shape(graph: Graph) -> tuple[object, ...]:
    """What the gates follow from: the node ids in authored order (the topological tie-break),
    every edge's ends and kind in order (links, ancestors, cycle, the bypasses' order) and each
    condition's branch handles and targets (`_condition_targets`)."""
    conditions = tuple(
        (node_id, tuple((branch.handle, None if branch.target is None else branch.target.id)
                        for branch in node.branches),
         None if node.default is None else node.default.id)
        for node_id, node in graph.workflow.nodes_by_id.items() if node.type == "condition")
    return (tuple(graph.node_ids),
            tuple([(edge.source, edge.target, edge.kind) for edge in graph.edges]), conditions)


def leaks(graph: Graph, gates: Iterable[BranchGate] | None = None) -> list[Leak]:
    """Each bypassing edge once, in the order the gates list them (`gates`: `branch_gates(graph)`
    when the caller has them already)."""
    bypassed: dict[GraphEdge, list[BranchGate]] = {}
    for gate in branch_gates(graph) if gates is None else gates:
        for edge in gate.bypasses:
            bypassed.setdefault(edge, []).append(gate)
    depth = graph.ancestors
    result = []
    for edge, found in bypassed.items():
        found.sort(key=lambda gate: len(depth(gate.condition)), reverse=True)
        result.append(Leak(edge, found[0], tuple(found[1:])))
    return result


def gates_by_node(graph: Graph, gates: Iterable[BranchGate] | None = None
                  ) -> dict[str, list[BranchGate]]:
    """Each gated node's gates, the outermost (the condition with the fewest ancestors) first."""
    depth = graph.ancestors
    found: dict[str, list[BranchGate]] = {}
    ordered = sorted(branch_gates(graph) if gates is None else gates,
                     key=lambda gate: len(depth(gate.condition)))
    for gate in ordered:
        for node in gate.gated:
            found.setdefault(node, []).append(gate)
    return found


def branch_gates(graph: Graph) -> list[BranchGate]:
    if graph.cycle is not None:
        return []
    facts = _Facts(graph)
    gates: list[BranchGate] = []
    for condition, by_target in facts.targets.items():
        if len(by_target) < 2:
            continue  # the condition always selects its one target
        completed = facts.dominators(condition)
        shared: dict[str, _State] = {}  # the fates that do not follow the condition
        for target, handles in by_target.items():
            gated = facts.gated(target, condition)
            if not gated:
                continue
            fate = _RoutedAway(facts, condition, target, completed, shared)
            bypasses = tuple(
                edge for node in sorted(gated, key=facts.position.__getitem__)
                for edge in facts.edges_into.get(node, ())
                if edge.source not in gated and fate.edge(edge.source, node) is _State.RUNS
            )
            runs_anyway = facts.running(gated, {edge.target for edge in bypasses}, fate)
            gates.append(BranchGate(condition, tuple(handles), target, gated, bypasses,
                                    runs_anyway))
    return gates


class _Facts:
    """What every gate of one graph reads, derived once."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.order = _topological(graph)
        self.position = {node: index for index, node in enumerate(self.order)}
        self.idom = self._immediate_dominators()
        self.targets = _condition_targets(graph)
        self.selectable = {condition: frozenset(by_target)
                           for condition, by_target in self.targets.items()}
        self.control_sources: dict[str, set[str]] = {}
        self.control_successors: dict[str, set[str]] = {}
        self.edges_into: dict[str, list[GraphEdge]] = {}
        for edge in graph.edges:
            self.edges_into.setdefault(edge.target, []).append(edge)
            if edge.kind in CONTROL_EDGES:
                self.control_sources.setdefault(edge.target, set()).add(edge.source)
                self.control_successors.setdefault(edge.source, set()).add(edge.target)

    def _immediate_dominators(self) -> dict[str, str | None]:
        """Each node's immediate dominator (None: only the virtual root above every root
        dominates it), by intersecting its predecessors' dominator chains in topological order
        (Cooper, Harvey and Kennedy's walk; one pass suffices on an acyclic graph)."""
        idom: dict[str, str | None] = {}
        position = self.position

        def common(a: str | None, b: str | None) -> str | None:
            while a != b:
                if a is None or b is None:
                    return None
                if position[a] > position[b]:
                    a = idom[a]
                else:
                    b = idom[b]
            return a

        for node in self.order:
            parents = self.graph.predecessors.get(node, ())
            found: str | None = parents[0] if parents else None
            for parent in parents[1:]:
                found = common(found, parent)
            idom[node] = found
        return idom

    def dominators(self, node: str) -> _Dominators:
        """The node and every node on each path from a root to it: they completed whenever it
        was dispatched."""
        return _Dominators(self._dominator_spans, node)

    @cached_property
    def _dominator_spans(self) -> dict[str, tuple[int, int]]:
        """Each node's (entry, exit) step in a depth-first walk of the dominator tree: a node
        dominates another exactly when its span holds the other's. The chain up the tree listed
        per condition was quadratic on a long chain of conditions (650,000 steps at 5,000
        nodes, 500 conditions)."""
        children: dict[str | None, list[str]] = {}
        for node in self.order:
            children.setdefault(self.idom[node], []).append(node)
        spans: dict[str, tuple[int, int]] = {}
        step = 0
        stack: list[tuple[str, bool]] = [(root, False) for root in reversed(children.get(None, []))]
        entries: dict[str, int] = {}
        while stack:
            node, leaving = stack.pop()
            step += 1
            if leaving:
                spans[node] = (entries[node], step)
                continue
            entries[node] = step
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(children.get(node, [])))
        return spans

    def running(self, gated: frozenset[str], entered: set[str],
                fate: _RoutedAway) -> frozenset[str]:
        """The gated nodes that run anyway: only a bypassed node, or one after it, can."""
        reached = set(entered)
        stack = list(entered)
        while stack:
            for child in self.graph.successors.get(stack.pop(), ()):
                if child in gated and child not in reached:
                    reached.add(child)
                    stack.append(child)
        return frozenset(node for node in reached if fate.of(node) is _State.RUNS)

    def gated(self, target: str, condition: str) -> frozenset[str]:
        """The target and what only it leads to; nothing when a node following the condition
        on another path also leads to the target (the branches join there, as the author wired
        it)."""
        ancestors = self.graph.ancestors
        if any(source != condition and condition in ancestors(source)
               for source in self.control_sources.get(target, ())):
            return frozenset()
        gated = {target}
        pending = [(self.position[target], target)]
        while pending:  # in topological order, so a node's sources are decided before it
            _, node = heapq.heappop(pending)
            for child in self.control_successors.get(node, ()):
                if child in gated or child == condition:
                    continue
                if self.control_sources[child] <= gated:
                    gated.add(child)
                    heapq.heappush(pending, (self.position[child], child))
        return frozenset(gated)


class _Dominators:
    """The nodes that dominate `node`, itself included, as a membership test."""

    __slots__ = ("_node", "_spans")

    def __init__(self, spans: dict[str, tuple[int, int]], node: str) -> None:
        self._spans = spans
        self._node = node

    def __contains__(self, other: object) -> bool:
        span = self._spans.get(other) if isinstance(other, str) else None
        if span is None:
            return False
        entry, exit_ = self._spans[self._node]
        return span[0] <= entry and exit_ <= span[1]


class _RoutedAway:
    """Each node's fate on a run where `condition` completed and did not select `target`,
    worked out only for the nodes asked about (and what they follow). Fates of nodes that do not
    follow the condition are the same for each of its targets: kept in `shared`."""

    def __init__(self, facts: _Facts, condition: str, target: str, completed: _Dominators,
                 shared: dict[str, _State]) -> None:
        self.facts = facts
        self.condition = condition
        self.target = target
        self.completed = completed
        self.shared = shared
        self.own: dict[str, _State] = {}

    def _known(self, node: str) -> _State | None:
        return self.own.get(node) or self.shared.get(node)

    def of(self, node: str) -> _State:
        known = self._known(node)
        if known is not None:
            return known
        predecessors = self.facts.graph.predecessors
        needed: set[str] = set()
        stack = [node]
        while stack:  # what the node's fate depends on and is not yet known
            current = stack.pop()
            if current in needed or self._known(current) is not None:
                continue
            needed.add(current)
            if current not in self.completed:
                stack.extend(predecessors.get(current, ()))
        follows = self.facts.graph.ancestors
        for current in sorted(needed, key=self.facts.position.__getitem__):
            parents = predecessors.get(current, ())
            if current in self.completed or not parents:
                state = _State.RUNS
            else:
                state = _fold(self.edge(parent, current) for parent in parents)
            after = current == self.condition or self.condition in follows(current)
            (self.own if after else self.shared)[current] = state
        return self.own.get(node) or self.shared[node]

    def edge(self, source: str, node: str) -> _State:
        """Whether the in-edge `source → node` is live (RUNS), dead (SKIPPED) or unknown."""
        state = self.of(source)
        selectable = self.facts.selectable.get(source)
        if state is not _State.RUNS or selectable is None:
            return state
        if source == self.condition:
            if node == self.target:
                return _State.SKIPPED
            selectable = selectable - {self.target}
        if node not in selectable:
            return _State.SKIPPED  # the condition never selects it here
        return _State.RUNS if len(selectable) == 1 else _State.UNKNOWN


def _topological(graph: Graph) -> list[str]:
    """A topological order (acyclic graphs only): a node's ancestors are a strict superset of
    each of its ancestors' own, so fewer ancestors come first (authored position breaks ties)."""
    ancestors, positions = graph.ancestors, graph.positions
    return sorted(graph.node_ids, key=lambda node: (len(ancestors(node)), positions[node]))


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


def _fold(edges: Iterable[_State]) -> _State:
    """A node with these in-edges: runs if one is surely live, skipped if all are dead."""
    seen = set(edges)
    if _State.RUNS in seen:
        return _State.RUNS
    return _State.SKIPPED if seen == {_State.SKIPPED} else _State.UNKNOWN
