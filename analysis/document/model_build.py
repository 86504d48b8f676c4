"""Building the workflow model (`analysis.document.model`) from a composed YAML document: the
declarations of each section, taken over from an earlier version's model where the YAML read
shared their items (see the contract in `analysis.document.model`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from analysis.document.model import (
    EXPRESSION_FIELDS,
    NODE_TEMPLATE_FIELDS,
    AgentDecl,
    ContextDecl,
    Edge,
    ExpressionField,
    InputDecl,
    NodeDef,
    TemplateField,
    Workflow,
    entry_value,
    mappings,
    string_ref,
)
from analysis.document.scalar_offsets import ScalarText
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YamlDocument, YMapping, YNode, YScalar


def _string_scalar(node: YNode | None) -> YScalar | None:
    if isinstance(node, YScalar) and isinstance(node.value, str):
        return node
    return None


def _build_node(index: int, mapping: YMapping, source: SourceText) -> NodeDef:
    node_type = string_ref(entry_value(mapping, "type"))
    node = NodeDef(index, mapping, string_ref(entry_value(mapping, "id")),
                   node_type.id if node_type else None)
    expression_name = EXPRESSION_FIELDS.get(node.type or "")
    if expression_name:
        scalar = _string_scalar(entry_value(mapping, expression_name))
        if scalar is not None:
            node.expression = ExpressionField(scalar, source, node, expression_name)
    for name in NODE_TEMPLATE_FIELDS.get(node.type or "", ()):
        scalar = _string_scalar(entry_value(mapping, name))
        if scalar is not None:
            node.templates.append(TemplateField(scalar, source, node, name))
    return node


def _input(index: int, item: YMapping, source: SourceText) -> InputDecl:
    input_type = string_ref(entry_value(item, "type"))
    return InputDecl(index, item, string_ref(entry_value(item, "name")),
                     input_type.id if input_type else None)


def _context(index: int, item: YMapping, source: SourceText) -> ContextDecl:
    entry = ContextDecl(index, item, string_ref(entry_value(item, "key")), None)
    scalar = _string_scalar(entry_value(item, "value"))
    if scalar is not None:
        entry.value = TemplateField(scalar, source, entry, "value")
    return entry


def _agent(index: int, item: YMapping, source: SourceText) -> AgentDecl:
    agent = AgentDecl(index, item, string_ref(entry_value(item, "id")),
                      item.get("$ref") is not None, None)
    scalar = _string_scalar(entry_value(item, "system_prompt"))
    if scalar is not None:
        agent.system_prompt = TemplateField(scalar, source, agent, "system_prompt")
    return agent


def _edge(index: int, item: YMapping, source: SourceText) -> Edge:
    from_scalar = _string_scalar(entry_value(item, "from"))
    return Edge(index, item, ScalarText(from_scalar, source) if from_scalar else None,
                string_ref(entry_value(item, "to")))


Decl = TypeVar("Decl", InputDecl, ContextDecl, AgentDecl, NodeDef, Edge)


def _section(items: YNode | None, build: Callable[[int, YMapping, SourceText], Decl],
             previous: list[Decl], source: SourceText) -> list[Decl]:
    """The declarations of a section's mapping items. One whose mapping is the very object an
    earlier version's declaration was built from (an incremental read shares the items before
    the one it read again: same text, same offsets) is that declaration: building it again
    would give an equal one. Its scalar texts are pointed at this version's source, which has
    the same text at their spans, so an old source is not kept alive by them."""
    result = []
    # An incremental read keeps the items in order, so a shared item's declaration sits at the
    # same position in `previous`.
    for position, (index, item) in enumerate(mappings(items)):
        decl = previous[position] if position < len(previous) else None
        if decl is None or decl.mapping is not item or decl.index != index:
            decl = build(index, item, source)
        else:
            _point_at(decl, source)
        result.append(decl)
    return result


def _point_at(decl: InputDecl | ContextDecl | AgentDecl | NodeDef | Edge,
              source: SourceText) -> None:
    for text in decl.scalar_texts():
        text.source = source


def point_back(workflow: Workflow) -> None:
    """Point the scalar texts of every declaration at the workflow's own source again, after a
    later version's `build_workflow` took them over and that version was dropped."""
    for section in (workflow.inputs, workflow.context, workflow.agents, workflow.nodes,
                    workflow.edges):
        for decl in section:
            _point_at(decl, workflow.source)


def build_workflow(document: YamlDocument, previous: Workflow | None = None) -> Workflow:
    """The model of `document`; with `previous` (the model of an earlier version of the same
    document), declarations whose items the YAML read shared with it are taken over."""
    source = document.source
    root = document.root if isinstance(document.root, YMapping) else None
    body_node = entry_value(root, "workflow") if root else None
    body = body_node if isinstance(body_node, YMapping) else None

    def section(name: str, build: Callable[[int, YMapping, SourceText], Decl],
                earlier: list[Decl]) -> list[Decl]:
        return _section(entry_value(body, name), build, earlier, source) if body else []

    return Workflow(
        source, document, root, body,
        string_ref(entry_value(body, "id")) if body else None,
        section("inputs", _input, previous.inputs if previous else []),
        section("context", _context, previous.context if previous else []),
        section("agents", _agent, previous.agents if previous else []),
        section("nodes", _build_node, previous.nodes if previous else []),
        section("edges", _edge, previous.edges if previous else []),
    )
