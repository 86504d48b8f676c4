"""The dependency graph the engine builds, and the facts derived from it.

Contract:
- `build_graph(workflow)` never raises (`build_graph(workflow, previous)` gives an equal graph,
  taking over from an earlier version's graph with the same node ids the edges of the
  declarations it shares, and links, ancestors and cycle while they link the same ids). Its `edges`
  are the union the engine builds (see the workflow-yaml spec): `explicit` edges (the `from` id
  before the first `:`), `parallel` edges (parallel → each `parallel_of` member), `condition` edges
  (condition → each branch `target_node` and `default`) and `data` edges (`{{ run.outputs["id"] }}`
  in an agent's `prompt_template` / `system_prompt_append`, its resolved agent's `system_prompt`, a
  gate's `assignee` / `message_template`). Only edges whose both ends are existing node ids are in
  the graph; expressions never add edges.
- `ancestors(node_id)` → the transitive predecessors (a read-only set that behaves like a
  frozenset, never including the node itself unless it sits on a cycle); `cycle` → one cycle as
  a node-id path whose first and last element are equal (None when acyclic), with
  `cycle_edges` the `GraphEdge`s along it.
- `positions` → each node id's place in the file (authored order).
- `fan_in_branches(merge_id)` → the node ids in the order of the merge's `branches` array
  (the engine's `branchNodeIds`).
- `secret_inputs` and `secret_context` → the declared secret input names and the context keys
  derived from one (taint through `{{ inputs.x }}` and `{{ ctx.y }}` in context values): what
  the sandbox denies an expression.
- `template_taint` → every `inputs.NAME` / `ctx.KEY` that carries a secret into a template, as
  the engine's load-time check computes it (also through input defaults and `{{ secrets.X }}`),
  each mapped to the symbol it got the secret from (`taint_chain` spells the whole chain).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Set
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cached_property

from analysis.document.model import (
    DATA_EDGE_FIELDS,
    AgentDecl,
    Edge,
    NodeDef,
    NodeRef,
    TemplateField,
    Workflow,
)
from analysis.document.scalar_offsets import ScalarText
from analysis.document.templates import TemplateRef

# the node types that store no value: a condition stores none, a parallel a control `null`
# (ADR-0091 as amended: they gate a merge or output without feeding it a value)
CONTROL_TYPES = frozenset({"condition", "parallel"})


# Compared and hashed by value, never changed; not frozen, whose __init__ costs three times as
# much, and every analysis makes one per edge.
@dataclass(unsafe_hash=True, slots=True)
class GraphEdge:
    source: str
    target: str
    kind: str  # "explicit" | "parallel" | "condition" | "data"
    written: NodeRef | tuple[ScalarText, int, int]  # the reference, or a template's name range

    @property
    def span(self) -> tuple[int, int]:
        """Where the edge is written: the target reference, or the id in a template."""
        if isinstance(self.written, NodeRef):
            return self.written.span
        template, start, end = self.written
        return template.source_span(start, end)

    @property
    def read_field(self) -> str | None:
        """The template field a data edge's read is written in (None for a control edge)."""
        if isinstance(self.written, NodeRef):
            return None
        template = self.written[0]
        return template.name if isinstance(template, TemplateField) else None


class NodeSet(Set[str]):
    """An immutable set of node ids stored as bits over the graph's node order (cheap unions:
    every node's ancestors cost one integer each). Behaves like a frozenset."""

    __slots__ = ("_bits", "_ids", "_index")

    def __init__(self, bits: int, index: dict[str, int], ids: list[str]) -> None:
        self._bits = bits
        self._index = index
        self._ids = ids

    def __contains__(self, node_id: object) -> bool:
        position = self._index.get(node_id) if isinstance(node_id, str) else None
        return position is not None and bool(self._bits >> position & 1)

    def __iter__(self) -> Iterator[str]:
        bits = self._bits
        while bits:
            low = bits & -bits
            yield self._ids[low.bit_length() - 1]
            bits ^= low

    def __len__(self) -> int:
        return self._bits.bit_count()

    def __repr__(self) -> str:
        return f"NodeSet({sorted(self)!r})"

    @classmethod
    def _from_iterable(cls, iterable: Iterable[str]) -> frozenset[str]:  # type: ignore[override]
        return frozenset(iterable)

    __hash__ = Set._hash


@dataclass(eq=False)
class Graph:
    workflow: Workflow
    node_ids: list[str]
    edges: list[GraphEdge]
    successors: dict[str, list[str]] = field(default_factory=dict)
    predecessors: dict[str, list[str]] = field(default_factory=dict)
    _ancestors: dict[str, AbstractSet[str]] = field(default_factory=dict, repr=False)
    # each declaration's edges by its slot (an edge's place in `edges:`, a node's id), with the
    # declaration and a node's agent they were made from (see `build_graph`)
    _made: dict[int | str, Made] = field(default_factory=dict, repr=False)

    def ancestors(self, node_id: str) -> AbstractSet[str]:
        if not self._ancestors and self.cycle is None:
            self._all_ancestors()
        cached = self._ancestors.get(node_id)
        if cached is not None:
            return cached
        seen: set[str] = set()
        stack = list(self.predecessors.get(node_id, ()))
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            known = self._ancestors.get(current)
            if known is not None:
                seen |= known
                continue
            stack.extend(self.predecessors.get(current, ()))
        result = frozenset(seen)
        self._ancestors[node_id] = result
        return result

    def _all_ancestors(self) -> None:
        """Every node's ancestors at once, as bit sets in topological order (acyclic only)."""
        index = self.positions
        pending = {node_id: len(self.predecessors.get(node_id, ())) for node_id in self.node_ids}
        ready = [node_id for node_id, count in pending.items() if count == 0]
        bits: dict[str, int] = {}
        while ready:
            node_id = ready.pop()
            result = 0
            for parent in self.predecessors.get(node_id, ()):
                result |= bits[parent] | (1 << index[parent])
            bits[node_id] = result
            self._ancestors[node_id] = NodeSet(result, index, self.node_ids)
            for child in self.successors.get(node_id, ()):
                pending[child] -= 1
                if pending[child] == 0:
                    ready.append(child)

    @cached_property
    def cycle(self) -> list[str] | None:
        """One cycle (iterative DFS, authored order), as a closed path of node ids."""
        state: dict[str, int] = {}  # 1 = on the stack, 2 = done
        for root in self.node_ids:
            if root in state:
                continue
            path: list[str] = [root]
            iterators = [iter(self.successors.get(root, ()))]
            state[root] = 1
            while iterators:
                child = next(iterators[-1], None)
                if child is None:
                    state[path.pop()] = 2
                    iterators.pop()
                elif state.get(child) == 1:
                    return [*path[path.index(child):], child]
                elif child not in state:
                    state[child] = 1
                    path.append(child)
                    iterators.append(iter(self.successors.get(child, ())))
        return None

    @cached_property
    def cycle_edges(self) -> list[GraphEdge]:
        if self.cycle is None:
            return []
        by_pair: dict[tuple[str, str], GraphEdge] = {}
        for edge in self.edges:
            by_pair.setdefault((edge.source, edge.target), edge)
        return [by_pair[pair] for pair in zip(self.cycle, self.cycle[1:], strict=False)]

    def fan_in_branches(self, merge_id: str) -> list[str]:
        """The merge's `branches` order, as the newest engine plan pins it (ADR-0091 as amended
        2026-09-03, dag.ts `computeMergeBranchOrder`): only value-producing feeders are branches
        (a condition or parallel feeding the merge is a control edge: it gates the join and adds
        nothing). The paired parallel is the one whose members (the merge itself exempt) all feed
        the merge, ranked by how many value-producing feeders it covers, the authored-first on a
        tie, never one covering none; its `parallel_of` order comes first, then every other
        feeder in authored order."""
        incoming = sorted(self.predecessors.get(merge_id, ()), key=self.positions.__getitem__)
        feeding = set(incoming) | {merge_id}
        nodes = self.workflow.nodes_by_id
        producers = {source for source in incoming
                     if (node := nodes.get(source)) is None or node.type not in CONTROL_TYPES}
        parallels = self._parallel_members
        # only a parallel with a producing member among the feeders can cover any
        candidates = sorted({index for source in producers
                             for index in self._parallels_of_member.get(source, ())})
        paired = max(
            (index for index in candidates if feeding.issuperset(parallels[index])),
            key=lambda index: (len(producers.intersection(parallels[index])), -index),
            default=None,
        )
        members = [m for m in parallels[paired] if m != merge_id] if paired is not None else []
        ordered = members + [source for source in incoming if source not in members]
        return [source for source in ordered if source in producers]

    @cached_property
    def positions(self) -> dict[str, int]:
        """Each node id's place in the file (`node_ids` order): the bit of its ancestor sets,
        the tie-break of the plan order and of fan-in. Never changed once made."""
        return {node_id: position for position, node_id in enumerate(self.node_ids)}

    @cached_property
    def _parallel_members(self) -> list[list[str]]:
        """The distinct `parallel_of` ids of each parallel node with members, in authored order
        (a node whose id another declaration took does not count)."""
        nodes = self.workflow.nodes_by_id
        return [
            members
            for node in self.workflow.nodes
            if node.type == "parallel" and node.id is not None and nodes.get(node.id) is node
            and (members := list(dict.fromkeys(m.id for m in node.parallel_of)))
        ]

    @cached_property
    def _parallels_of_member(self) -> dict[str, list[int]]:
        """The indices in `_parallel_members` of the parallels each node id is a member of."""
        found: dict[str, list[int]] = {}
        for index, members in enumerate(self._parallel_members):
            for member in members:
                found.setdefault(member, []).append(index)
        return found

    @cached_property
    def secret_inputs(self) -> frozenset[str]:
        return frozenset(
            decl.name for decl in self.workflow.inputs if decl.secret and decl.name is not None
        )

    @cached_property
    def template_taint(self) -> dict[str, str | None]:
        return secret_taint(self.workflow)

    @cached_property
    def secret_context(self) -> frozenset[str]:
        """What the sandbox denies: taint from secret inputs through context values only (not
        `{{ secrets.X }}` nor input defaults, unlike `template_taint`)."""
        taint = _spread(((f"inputs.{name}", None) for name in self.secret_inputs),
                        _reads(_context_values(self.workflow)))
        return frozenset(symbol[len("ctx."):] for symbol in taint if symbol.startswith("ctx."))


def secret_taint(workflow: Workflow) -> dict[str, str | None]:
    """Which `inputs.NAME` / `ctx.KEY` carry a secret into a template, as the engine computes it
    (packages/core/src/interpolation/analyze.ts computeTaint): a secret-typed input, an input
    default or context value that reads `{{ secrets.X }}`, and whatever input default or context
    value reads a tainted one. Each maps to the symbol it got the secret from (None for a secret
    input itself), so a finding can name the chain."""
    inputs = [decl for decl in workflow.inputs if decl.name is not None]
    values = [(f"inputs.{decl.name}", decl.default_references) for decl in inputs]
    values += _context_values(workflow)
    secret = {f"inputs.{decl.name}" for decl in inputs if decl.secret}
    seeds: list[tuple[str, str | None]] = []
    for symbol, refs in values:  # an input's own secrecy names it before its default's reads
        if symbol in secret:
            seeds.append((symbol, None))
        seeds += [(symbol, f"secrets.{ref.name}") for ref in refs if ref.kind == "secrets"]
    return _spread(seeds, _reads(values))


_Values = list[tuple[str, tuple[TemplateRef, ...]]]  # (symbol, the references in its value)


def _context_values(workflow: Workflow) -> _Values:
    return [(f"ctx.{entry.key}", entry.value.references)
            for entry in workflow.context if entry.key is not None and entry.value is not None]


def _reads(values: _Values) -> list[tuple[str, str]]:
    """(reader, symbol read) for each `inputs.NAME` / `ctx.KEY` read in the values."""
    return [(symbol, f"{ref.kind}.{ref.name}")
            for symbol, refs in values for ref in refs if ref.kind in ("inputs", "ctx")]


def _spread(
    seeds: Iterable[tuple[str, str | None]], reads: Iterable[tuple[str, str]]
) -> dict[str, str | None]:
    """Each symbol tainted from `seeds` ((symbol, where it got the secret)) through `reads`
    ((reader, symbol read)), mapped to the symbol it got it from; the first seed or read to
    reach a symbol names it. A walk from the seeds: each read is followed once, so a long chain
    of context keys costs its length (a fixed point over all entries cost its square)."""
    taint: dict[str, str | None] = {}
    queue: list[str] = []
    for symbol, via in seeds:
        if symbol not in taint:
            taint[symbol] = via
            queue.append(symbol)
    readers: dict[str, list[str]] = {}
    for reader, read in reads:
        readers.setdefault(read, []).append(reader)
    while queue:
        target = queue.pop()
        for reader in readers.get(target, ()):
            if reader not in taint:
                taint[reader] = target
                queue.append(reader)
    return taint


def taint_chain(taint: dict[str, str | None], symbol: str) -> list[str]:
    """`symbol` and each symbol it got its secret from, down to the source."""
    chain = [symbol]
    via = taint.get(symbol)
    while via is not None and via not in chain:
        chain.append(via)
        via = taint.get(via)
    return chain


def _data_edge_sources(
    node: NodeDef, agent: AgentDecl | None
) -> list[tuple[str, tuple[ScalarText, int, int]]]:
    fields = [t for t in node.templates if t.name in DATA_EDGE_FIELDS]
    if agent is not None and agent.system_prompt is not None:
        fields.append(agent.system_prompt)
    result: list[tuple[str, tuple[ScalarText, int, int]]] = []
    for template in fields:
        for ref in template.references:
            if ref.edge and ref.name is not None:
                result.append((ref.name, (template, ref.name_start, ref.name_end)))
    return result


# A declaration, the agent a node's data edges read, and the graph edges they make.
Made = tuple[Edge | NodeDef, AgentDecl | None, list[GraphEdge]]


def _explicit_edges(edge: Edge, nodes: dict[str, NodeDef]) -> list[GraphEdge]:
    if edge.source in nodes and edge.to is not None and edge.to.id in nodes:
        return [GraphEdge(edge.source, edge.to.id, "explicit", edge.to)]
    return []


def _node_edges(node_id: str, node: NodeDef, agent: AgentDecl | None,
                nodes: dict[str, NodeDef]) -> list[GraphEdge]:
    if node.type == "parallel":
        return [GraphEdge(node_id, member.id, "parallel", member)
                for member in node.parallel_of if member.id in nodes]
    if node.type == "condition":
        targets = [branch.target for branch in node.branches] + [node.default]
        return [GraphEdge(node_id, target.id, "condition", target)
                for target in targets if target is not None and target.id in nodes]
    if node.type in ("agent", "human_gate"):
        return [GraphEdge(source, node_id, "data", written)
                for source, written in _data_edge_sources(node, agent) if source in nodes]
    return []


def _pairs(edges: list[GraphEdge]) -> list[tuple[str, str]]:
    return [(edge.source, edge.target) for edge in edges]


def build_graph(workflow: Workflow, previous: Graph | None = None) -> Graph:
    """The workflow's graph. With `previous` (the graph of an earlier version of the document)
    and the same node ids, a declaration it was made from (and a node's agent) gives the same
    edges: they are taken over. While every other declaration's edges link the same ids, the
    links, ancestors and cycle are taken over too: they follow from the ids and links alone, and
    a keystroke seldom changes them."""
    nodes = workflow.nodes_by_id
    node_ids = list(nodes)
    same_ids = previous is not None and previous.node_ids == node_ids
    known = previous._made if previous is not None and same_ids else {}
    made: dict[int | str, Made] = {}
    edges: list[GraphEdge] = []
    same_links = same_ids

    def take(slot: int | str, decl: Edge | NodeDef, agent: AgentDecl | None,
             found: list[GraphEdge] | None) -> None:
        """`decl`'s edges: `found`, or the previous graph's when None (only then asked for)."""
        nonlocal same_links
        earlier = known.get(slot)
        if found is None:
            assert earlier is not None
            found = earlier[2]
        elif same_links and (earlier is None or _pairs(found) != _pairs(earlier[2])):
            same_links = False
        made[slot] = (decl, agent, found)
        edges.extend(found)

    def unchanged(slot: int | str, decl: Edge | NodeDef, agent: AgentDecl | None) -> bool:
        earlier = known.get(slot)
        return earlier is not None and earlier[0] is decl and earlier[1] is agent

    for index, edge in enumerate(workflow.edges):
        take(index, edge, None, None if unchanged(index, edge, None)
             else _explicit_edges(edge, nodes))
    for node_id, node in nodes.items():
        agent = workflow.agent_for(node) if node.type == "agent" else None
        take(node_id, node, agent, None if unchanged(node_id, node, agent)
             else _node_edges(node_id, node, agent, nodes))
    graph = Graph(workflow, node_ids, edges, _made=made)
    if previous is not None and same_links and len(made) == len(known):
        graph.successors, graph.predecessors = previous.successors, previous.predecessors
    else:
        for link in edges:
            successors = graph.successors.setdefault(link.source, [])
            if link.target not in successors:
                successors.append(link.target)
                graph.predecessors.setdefault(link.target, []).append(link.source)
        same_links = same_ids and previous is not None and (
            previous.successors == graph.successors)
    if previous is not None and same_links:
        # both follow from the ids and the successors alone (ancestors are sets: the order of
        # predecessors does not matter)
        if "cycle" in previous.__dict__:
            graph.__dict__["cycle"] = previous.cycle
        graph._ancestors.update(previous._ancestors)
    return graph
