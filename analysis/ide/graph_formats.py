"""The workflow graph as text: Mermaid (for a pull request: GitHub renders it), Graphviz dot, and
one self-contained HTML page (the renderer bundle and the graph JSON inline).

Every node id and label is escaped for the format (ids become `n0`, `n1`, …: neither Mermaid's
bare ids nor dot's names can hold every character a node id can; the label shows the id), so no
id, label or `when` breaks the diagram. Control edges are solid, data edges dashed; leaks red;
parallel groups are boxes (subgraphs, clusters); with a dry run each node's status colours it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import cache
from importlib import resources
from typing import Any

from analysis.ide.workflow_graph import WorkflowGraph

MERMAID_SHAPES = {
    "input": ('(["', '"])'), "agent": ('["', '"]'), "condition": ('{"', '"}'),
    "transform": ('("', '")'), "merge": ('(("', '"))'), "parallel": ('[["', '"]]'),
    "human_gate": ('{{"', '"}}'), "output": ('[/"', '"/]'),
}
DOT_SHAPES = {"input": "oval", "agent": "box", "condition": "diamond", "transform": "box",
              "merge": "invtrapezium", "parallel": "box3d", "human_gate": "hexagon",
              "output": "oval"}
STATUS_COLOURS = {"ran": "#16a34a", "pinned": "#2563eb", "synthesized": "#9333ea",
                  "skipped": "#9ca3af", "failed": "#dc2626", "not-run": "#6b7280"}
LEAK_COLOUR = "#dc2626"
# Mermaid's entity codes inside a quoted label: what would end the string, open markdown or an
# entity, or start HTML
_MERMAID_ENTITIES = {'"': "#quot;", "#": "#35;", "`": "#96;", "<": "#lt;", ">": "#gt;",
                     "&": "#amp;"}


def _mermaid_text(text: str) -> str:
    flat = " ".join(text.split())
    return "".join(_MERMAID_ENTITIES.get(char, char) for char in flat)


def to_mermaid(model: WorkflowGraph) -> str:
    ids = {node.id: f"n{index}" for index, node in enumerate(model.nodes)}
    lines = ["flowchart TD"]
    grouped: set[str] = set()
    for index, group in enumerate(model.groups):
        members = [m for m in group.members if m in ids and m not in grouped]
        if not members:
            continue
        grouped.update(members)
        lines.append(f'  subgraph g{index}["{_mermaid_text("parallel " + group.parallel)}"]')
        lines.extend(f"    {ids[member]}" for member in members)
        lines.append("  end")
    for node in model.nodes:
        opening, closing = MERMAID_SHAPES.get(node.type, ('["', '"]'))
        lines.append(f"  {ids[node.id]}{opening}{_mermaid_text(_caption(node))}{closing}")
    leak_links = []  # linkStyle counts the links in the order they are written
    drawn = [edge for edge in model.edges if edge.source in ids and edge.target in ids]
    for link, edge in enumerate(drawn):
        arrow = "-->" if edge.control else "-.->"
        label = f'|"{_mermaid_text(edge.label)}"|' if edge.label else ""
        if edge.leak:
            leak_links.append(str(link))
        lines.append(f"  {ids[edge.source]} {arrow}{label} {ids[edge.target]}")
    lines.append(f"  classDef leaked stroke:{LEAK_COLOUR},stroke-width:3px")
    for state, colour in STATUS_COLOURS.items():
        lines.append(f"  classDef {_status_class(state)} fill:{colour}33,stroke:{colour}")
    for node in model.nodes:
        classes = [_status_class(node.status.state)] if node.status is not None else []
        if node.leaked:
            classes.append("leaked")
        if classes:
            lines.append(f"  class {ids[node.id]} {','.join(classes)}")
    if leak_links:
        lines.append(f"  linkStyle {','.join(leak_links)} stroke:{LEAK_COLOUR},stroke-width:2px")
    return "\n".join(lines) + "\n"


def _status_class(state: str) -> str:
    return "status_" + state.replace("-", "_")


def _caption(node: Any) -> str:
    """The node's label, its id when the label differs, and its dry-run status."""
    caption = node.label if node.label == node.id else f"{node.label} ({node.id})"
    if node.status is not None:
        caption += f" · {node.status.state}"
    return caption


def _dot_text(text: str) -> str:
    """A dot double-quoted string: backslashes and quotes escaped (a label reads `\\n` and the
    like as escapes), `&` as `&amp;` (Graphviz decodes HTML entities in names and labels), line
    breaks as `\\n`."""
    escaped = text.replace("&", "&amp;").replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n") + '"'


def to_dot(model: WorkflowGraph) -> str:
    lines = [f"digraph {_dot_text(model.workflow_id or 'workflow')} {{",
             "  rankdir=TB;",
             '  node [fontname="Helvetica", fontsize=11, style=filled, fillcolor="#f8fafc"];',
             '  edge [fontname="Helvetica", fontsize=9];']
    # ids as `n0`, `n1`, …: Graphviz reads escapes in labels but not in names (a name ending in
    # a backslash would swallow its closing quote)
    ids = {node.id: f"n{index}" for index, node in enumerate(model.nodes)}
    grouped: set[str] = set()
    for index, group in enumerate(model.groups):
        members = [m for m in group.members if m in ids and m not in grouped]
        if not members:
            continue
        grouped.update(members)
        lines.append(f"  subgraph cluster_{index} {{")
        lines.append(f"    label={_dot_text('parallel ' + group.parallel)}; style=dashed;")
        lines.extend(f"    {ids[member]};" for member in members)
        lines.append("  }")
    for node in model.nodes:
        attributes = [f"label={_dot_text(_caption(node))}",
                      f"shape={DOT_SHAPES.get(node.type, 'box')}"]
        if node.status is not None:
            colour = STATUS_COLOURS.get(node.status.state, "#6b7280")
            attributes.append(f'fillcolor="{colour}33"')
            if node.status.value is not None:
                attributes.append(f"tooltip={_dot_text(node.status.value)}")
        if node.leaked:
            attributes.append(f'color="{LEAK_COLOUR}", penwidth=3')
        lines.append(f"  {ids[node.id]} [{', '.join(attributes)}];")
    for edge in model.edges:
        if edge.source not in ids or edge.target not in ids:
            continue
        attributes = [] if edge.control else ["style=dashed"]
        if edge.label:
            attributes.append(f"label={_dot_text(edge.label)}")
        if edge.leak:
            attributes.append(f'color="{LEAK_COLOUR}", fontcolor="{LEAK_COLOUR}", penwidth=2')
        suffix = f" [{', '.join(attributes)}]" if attributes else ""
        lines.append(f"  {ids[edge.source]} -> {ids[edge.target]}{suffix};")
    lines.append("}")
    return "\n".join(lines) + "\n"


@cache
def renderer_bundle() -> str:
    """The renderer (editors/graph, built into this package's graph_assets/)."""
    return resources.files("analysis.ide").joinpath("graph_assets/relavium-graph.js").read_text(
        encoding="utf-8")


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no `<`, so nothing can close it."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


_BOOT = """
(function () {
  var graph = JSON.parse(document.getElementById("relavium-graph-data").textContent);
  var started = performance.now();
  window.relaviumGraphView = RelaviumGraph.render(document.getElementById("graph"), graph, {
    onReady: function (info) {
      document.body.setAttribute("data-render-ms", String(performance.now() - started));
    }
  });
})();
"""


def to_html(model: WorkflowGraph, title: str) -> str:
    """One self-contained page: no remote resource, and a content security policy that allows
    only the two scripts inline (by their hashes) and inline styles."""
    bundle, boot = renderer_bundle(), _BOOT
    policy = ("default-src 'none'; "
              f"script-src 'sha256-{_sha256(bundle)}' 'sha256-{_sha256(boot)}'; "
              "style-src 'unsafe-inline'; img-src data:")
    safe_title = (title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                  .replace('"', "&quot;"))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{safe_title}</title>
<style>
html, body {{ margin: 0; height: 100%; font-family: sans-serif; background: #ffffff; }}
#graph {{ position: absolute; inset: 0; }}
</style>
</head>
<body>
<div id="graph"></div>
<script type="application/json" id="relavium-graph-data">{_script_json(model.to_json())}</script>
<script>{bundle}</script>
<script>{boot}</script>
</body>
</html>
"""


TEXT_FORMATS = ("mermaid", "dot", "json", "html")


def render_text(model: WorkflowGraph, format: str, title: str) -> str:
    """The graph in one of TEXT_FORMATS (json: the graph JSON, indented)."""
    if format == "mermaid":
        return to_mermaid(model)
    if format == "dot":
        return to_dot(model)
    if format == "html":
        return to_html(model, title)
    if format == "json":
        return json.dumps(model.to_json(), indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown graph format {format!r}")
