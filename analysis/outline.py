"""A workflow's outline (document symbols) as plain data: inputs, context, agents, the nodes
grouped by type, and the edges.

Contract:
- `outline(result)` (never raises) → the top-level `OutlineGroup`s in that order, each holding
  `OutlineItem`s (the nodes' group holds one group per node type, in `NODE_TYPES` order); an
  empty list when the result has no model. An item's `span` is its whole mapping and its
  `selected` span the id (or name, or edge target) it is declared with, as document offsets.
- A group has no span of its own: a client's range for it covers its children's.
- Plain data (no model objects), so the analysis process can send it: a large document's outline
  is computed where its model is (server/scheduling.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis import AnalysisResult
from analysis.schema import NODE_TYPES

# the kind of a top-level group
SECTION = "section"
# the kinds of items that are not nodes (a node's kind is its type)
DECLARED_INPUT = "declared-input"
CONTEXT_KEY = "context-key"
DECLARED_AGENT = "declared-agent"
EDGE = "edge"


@dataclass(frozen=True, slots=True)
class OutlineItem:
    name: str
    # `DECLARED_INPUT`, `CONTEXT_KEY`, `DECLARED_AGENT`, `EDGE`, or the node's type
    kind: str
    span: tuple[int, int]
    selected: tuple[int, int]
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class OutlineGroup:
    name: str
    # `SECTION`, or the node type whose nodes the group holds
    kind: str
    children: tuple[OutlineItem | OutlineGroup, ...]
    detail: str | None = None


def outline(result: AnalysisResult) -> list[OutlineGroup]:
    workflow = result.workflow
    if workflow is None:
        return []
    secret_inputs = result.graph.secret_inputs if result.graph is not None else frozenset()
    inputs = tuple(
        OutlineItem(decl.name, DECLARED_INPUT, decl.mapping.span, decl.name_ref.span,
                    "secret" if decl.name in secret_inputs else decl.type)
        for decl in workflow.inputs if decl.name is not None and decl.name_ref is not None
    )
    context = tuple(
        OutlineItem(entry.key, CONTEXT_KEY, entry.mapping.span, entry.key_ref.span)
        for entry in workflow.context if entry.key is not None and entry.key_ref is not None
    )
    agents = tuple(
        OutlineItem(agent.id, DECLARED_AGENT, agent.mapping.span, agent.id_ref.span)
        for agent in workflow.agents if agent.id is not None and agent.id_ref is not None
    )
    by_type: list[OutlineGroup] = []
    for node_type in NODE_TYPES:
        members = tuple(
            OutlineItem(node.id, node_type, node.mapping.span, node.id_ref.span)
            for node in workflow.nodes
            if node.type == node_type and node.id is not None and node.id_ref is not None
        )
        detail = f"{len(members)} node{'s' if len(members) != 1 else ''}"
        by_type.append(OutlineGroup(node_type, node_type, members, detail))
    edges = tuple(
        OutlineItem(f"{edge.from_field.value} → {edge.to.id}", EDGE, edge.mapping.span,
                    edge.to.span)
        for edge in workflow.edges if edge.from_field is not None and edge.to is not None
    )
    sections = (("inputs", inputs), ("context", context), ("agents", agents),
                ("nodes", tuple(by_type)), ("edges", edges))
    return [OutlineGroup(name, SECTION, children) for name, children in sections]
