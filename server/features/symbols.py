"""Document symbols: inputs, context, agents, the nodes grouped by type, and the edges — an
outline whose entries select the id (or name) they are declared with."""

from __future__ import annotations

from lsprotocol import types

from analysis.graph import Graph
from analysis.model import Workflow
from analysis.schema import NODE_TYPES
from analysis.yaml_tree import YMapping
from server.handlers import guarded
from server.language_server import RelaviumLanguageServer
from server.serving import View, view_of

Symbol = types.DocumentSymbol
_NODE_KINDS = {
    "input": types.SymbolKind.Event,
    "agent": types.SymbolKind.Object,
    "human_gate": types.SymbolKind.Interface,
    "condition": types.SymbolKind.Boolean,
    "transform": types.SymbolKind.Function,
    "parallel": types.SymbolKind.Array,
    "merge": types.SymbolKind.Operator,
    "output": types.SymbolKind.File,
}


def _symbol(view: View, name: str, kind: types.SymbolKind, whole: tuple[int, int],
            selected: tuple[int, int], detail: str | None = None) -> Symbol | None:
    full = view.client_range(*whole)
    selection = view.client_range(*selected)
    if full is None or selection is None:
        return None
    return Symbol(name=name, kind=kind, range=full, selection_range=selection, detail=detail)


def _group(view: View, name: str, kind: types.SymbolKind,
           children: list[Symbol | None], detail: str | None = None) -> Symbol | None:
    """A parent whose range covers its children and selects its first one."""
    kept = [child for child in children if child is not None]
    if not kept:
        return None
    start = min((c.range.start for c in kept), key=lambda p: (p.line, p.character))
    end = max((c.range.end for c in kept), key=lambda p: (p.line, p.character))
    return Symbol(name=name, kind=kind, range=types.Range(start=start, end=end),
                  selection_range=kept[0].selection_range, detail=detail, children=kept)


def _span(mapping: YMapping) -> tuple[int, int]:
    return mapping.start, mapping.end


def outline(view: View, workflow: Workflow, graph: Graph | None) -> list[Symbol]:
    secret_inputs = graph.secret_inputs if graph is not None else frozenset()
    inputs = _group(view, "inputs", types.SymbolKind.Namespace, [
        _symbol(view, decl.name, types.SymbolKind.Variable, _span(decl.mapping),
                decl.name_ref.span,
                "secret" if decl.name in secret_inputs else decl.type)
        for decl in workflow.inputs if decl.name is not None and decl.name_ref is not None
    ])
    context = _group(view, "context", types.SymbolKind.Namespace, [
        _symbol(view, entry.key, types.SymbolKind.Constant, _span(entry.mapping),
                entry.key_ref.span)
        for entry in workflow.context if entry.key is not None and entry.key_ref is not None
    ])
    agents = _group(view, "agents", types.SymbolKind.Namespace, [
        _symbol(view, agent.id, types.SymbolKind.Class, _span(agent.mapping), agent.id_ref.span)
        for agent in workflow.agents if agent.id is not None and agent.id_ref is not None
    ])
    by_type = []
    for node_type in NODE_TYPES:
        members = [node for node in workflow.nodes
                   if node.type == node_type and node.id is not None and node.id_ref is not None]
        by_type.append(_group(view, node_type, _NODE_KINDS[node_type], [
            _symbol(view, node.id, _NODE_KINDS[node_type], _span(node.mapping), node.id_ref.span)
            for node in members if node.id is not None and node.id_ref is not None
        ], f"{len(members)} node{'s' if len(members) != 1 else ''}"))
    nodes = _group(view, "nodes", types.SymbolKind.Namespace, list(by_type))
    edges = _group(view, "edges", types.SymbolKind.Namespace, [
        _symbol(view, f"{edge.from_field.value} → {edge.to.id}", types.SymbolKind.Event,
                _span(edge.mapping), edge.to.span)
        for edge in workflow.edges if edge.from_field is not None and edge.to is not None
    ])
    return [group for group in (inputs, context, agents, nodes, edges) if group is not None]


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded(empty=list)
    async def document_symbols(
        ls: RelaviumLanguageServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol]:
        view = await view_of(ls, params.text_document.uri)
        if view is None:
            return []
        return outline(view, view.workflow, view.result.graph)
