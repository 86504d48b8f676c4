"""`unordered-output-read`: add the edge that orders the read — only when it makes no cycle."""

from __future__ import annotations

from lsprotocol import types

from analysis.document.yaml_nodes import YSequence
from analysis.document.yaml_profile import resolve_plain
from server.lsp.quick_fixes import FixContext

RULES = ("unordered-output-read",)


def fixes(context: FixContext) -> list[types.CodeAction]:
    reader = context.data("reader")
    target = context.data("target")
    if reader is None or target is None or reader == target:
        return []
    graph = context.graph
    if target not in graph.node_ids or reader not in graph.node_ids:
        return []
    # target → reader closes a cycle exactly when reader already precedes target
    if reader in graph.ancestors(target):
        return []
    insertion = _edge_insertion(context, target, reader)
    if insertion is None:
        return []
    return [context.action(f"Add an edge from {target} to {reader}", [insertion], preferred=True)]


def yaml_id(node_id: str) -> str:
    """The id as a YAML flow scalar: plain when it stays a string, quoted otherwise."""
    plain = (
        node_id
        and resolve_plain(node_id) == node_id
        and not any(ch in node_id for ch in ",[]{}:#'\"")
        and node_id.strip() == node_id
    )
    return node_id if plain else "'" + node_id.replace("'", "''") + "'"


def _edge_insertion(context: FixContext, source: str, target: str) -> tuple[int, int, str] | None:
    body = context.workflow.body
    entry = body.get("edges") if body is not None else None
    if entry is None or not isinstance(entry.value, YSequence):
        return None
    edges = entry.value
    text = context.text
    edge = f"{{ from: {yaml_id(source)}, to: {yaml_id(target)} }}"
    if text[edges.start] == "[":
        if not edges.items:
            return (edges.start, edges.end, f"[{edge}]")
        last = edges.items[-1]
        return (last.end, last.end, f", {edge}")
    last = edges.items[-1]
    dash = text.rfind("-", 0, last.start)
    line_start = text.rfind("\n", 0, dash) + 1
    indent = text[line_start:dash]
    end = last.end
    while end > last.start and text[end - 1] in " \t\r\n":
        end -= 1
    newline = "\r\n" if "\r\n" in text else "\n"
    return (end, end, f"{newline}{indent}- {edge}")
