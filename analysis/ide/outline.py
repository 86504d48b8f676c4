"""A workflow's outline (document symbols), folds and runnable places as plain data: what an
editor showing the document asks for after every edit.

Contract:
- `outline(result)` (never raises) → the top-level `OutlineGroup`s in that order, each holding
  `OutlineItem`s (the nodes' group holds one group per node type, in `NODE_TYPES` order); an
  empty list when the result has no model. An item's `span` is its whole mapping and its
  `selected` span the id (or name, or edge target) it is declared with, as document offsets.
- A group has no span of its own: a client's range for it covers its children's.
- `folds(result)` (never raises) → (start, last character) offset pairs: every key folds from
  the key to its value's last non-blank character, every list item from its dash; whether one
  spans lines is for the caller to see, in its own text.
- `runnable(result)` (never raises) → `Runnable`: the span of the `nodes` key (None without
  one: where a whole dry run is offered), and for each expression field of a node with an id,
  in node order, (the node's id, the span of the field's key).
- Plain data (no model objects), so the analysis process can send it: a large document's
  answers are computed where its model is (server/lsp/worker/).
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.checks.analyze import AnalysisResult
from analysis.document.yaml_nodes import YMapping, YNode, YSequence
from analysis.schema.workflow import NODE_TYPES

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


def _last_character(text: str, start: int, end: int) -> int:
    """The offset of the node's last non-blank character (a block node's span runs on to the
    next line)."""
    index = end - 1
    while index > start and text[index] in " \t\r\n":
        index -= 1
    return index


def folds(result: AnalysisResult) -> list[tuple[int, int]]:
    root = result.document.root
    if root is None:
        return []
    text = result.source.text
    found: list[tuple[int, int]] = []
    stack: list[YNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, YMapping):
            for entry in node.entries:
                found.append((entry.key.start, _last_character(text, entry.value.start,
                                                               entry.value.end)))
                stack.append(entry.value)
        elif isinstance(node, YSequence):
            for item in node.items:
                found.append((item.start, _last_character(text, item.start, item.end)))
                stack.append(item)
    return found


@dataclass(frozen=True, slots=True)
class Runnable:
    nodes_key: tuple[int, int] | None
    # (node id, the span of its expression field's key)
    expression_keys: list[tuple[str, tuple[int, int]]]


def runnable(result: AnalysisResult) -> Runnable:
    workflow = result.workflow
    if workflow is None:
        return Runnable(None, [])
    body = workflow.body
    nodes = body.get("nodes") if body is not None else None
    keys = []
    for field in workflow.expression_fields():
        entry = field.node.entry(field.name)
        if field.node.id is not None and entry is not None:  # an id-less node cannot run
            keys.append((field.node.id, entry.key.span))
    return Runnable(nodes.key.span if nodes is not None else None, keys)
