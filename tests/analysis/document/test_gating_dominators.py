"""The gating facts' dominators (analysis/document/gating.py): a node's are the nodes on every
path to it from a root, itself included, checked against that definition by brute force on
random acyclic workflows (each node's set is a membership test over the dominator tree)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.document.gating import _Facts
from analysis.document.graph import Graph, build_graph
from analysis.document.model_build import build_workflow
from analysis.document.source import SourceText
from analysis.document.yaml_read import read_yaml


def _graph(size: int, edges: set[tuple[int, int]]) -> Graph:
    nodes = "".join(f"    - {{ id: n{i}, type: transform, transform: '1' }}\n"
                    for i in range(size))
    wired = "".join(f"    - {{ from: n{a}, to: n{b} }}\n" for a, b in sorted(edges)) or "    []\n"
    text = f"schema_version: '1.0'\nworkflow:\n  id: w\n  nodes:\n{nodes}  edges:\n{wired}"
    document = read_yaml(SourceText(text), None, lambda: None, False)
    return build_graph(build_workflow(document, None), None)


def _dominates(graph: Graph, dominator: str, node: str) -> bool:
    """Whether every path from a root to `node` passes `dominator`: `node` is unreachable from
    the roots once `dominator` is taken out."""
    if dominator == node:
        return True
    roots = [n for n in graph.node_ids if not graph.predecessors.get(n)]
    reached = {root for root in roots if root != dominator}
    stack = list(reached)
    while stack:
        for child in graph.successors.get(stack.pop(), ()):
            if child != dominator and child not in reached:
                reached.add(child)
                stack.append(child)
    return node not in reached


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 9).flatmap(lambda size: st.tuples(
    st.just(size),
    st.sets(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1))
            .filter(lambda edge: edge[0] < edge[1]), max_size=18),
)))
def test_a_nodes_dominators_are_the_nodes_on_every_path_to_it(
    case: tuple[int, set[tuple[int, int]]],
) -> None:
    size, edges = case
    graph = _graph(size, edges)
    facts = _Facts(graph)
    for node in graph.node_ids:
        dominators = facts.dominators(node)
        for other in graph.node_ids:
            assert (other in dominators) is _dominates(graph, other, node), (node, other)
