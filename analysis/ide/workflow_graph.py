"""The workflow graph as editors and `relavium-lsp graph` draw it: one model of the facts.

Contract: `workflow_graph(workflow, graph, run=None)` never raises and gives a `WorkflowGraph`:
- `nodes`: each node id once (the first declaration, as the engine keys them), with its type,
  label (the `label` field, else the id) and declaration ranges (0-based line, code-point
  column): the whole entry and its id;
- `edges`: the graph's edges (`analysis.document.graph`, the union the engine builds), one
  control edge per pair of nodes (a condition's branch edge and an explicit `cond:handle` edge to
  the same target are one edge, labelled with the handles) and one data edge per pair, with
  every read that makes it (the field and its range); a control edge's label is its handles and
  the explicit edges' own `label`s;
- `groups`: each parallel with its members and the merge that pairs with it (the merge whose
  `branches` begin with those members, `Graph.fan_in_branches`);
- `gates`: the condition branches and the nodes each gates, and `leaks`: the edges that bypass a
  branch (`analysis.document.gating`: the facts the leaked-branch rule reports);
- with a dry run (`analysis.dryrun.results.WorkflowRun`): each node's status, its reason, its
  value preview (as `run` prints it: `value_text`, bounded; every string holding a secret
  input's or secret context entry's sample value shown as `[secret]`) and its error's code and
  message.
`result_graph(result, run)` is the same for an analysed file, or NotDrawable with the reason.
`to_json(character)` is the graph JSON (docs/cli.md, "The graph JSON"): a contract for editors.
`character` turns a position into the client's column (the code-point column by default).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from analysis.checks.analyze import AnalysisResult
from analysis.diagnostics import Position, Range
from analysis.document.gating import BranchGate, Leak, branch_gates, gates_by_node, leaks
from analysis.document.graph import CONTROL_TYPES, Graph, GraphEdge
from analysis.document.model import Edge, NodeDef, NodeRef, Workflow, entry_value, string_ref
from analysis.document.source import SourceText
from analysis.dryrun.launch import why_no_workflow
from analysis.dryrun.results import WorkflowRun
from analysis.dryrun.values import UNDEFINED, value_text
from analysis.project.kinds import FileKind

GRAPH_JSON_VERSION = 1
VALUE_PREVIEW_LIMIT = 120  # what `run` prints of a value on a node's line
MESSAGE_LIMIT = 300
# one drawn control edge per pair: the kind that says most wins
_CONTROL_RANK = {"condition": 0, "parallel": 1, "explicit": 2}


@dataclass
class Status:
    state: str  # ran | pinned | synthesized | skipped | failed | not-run
    reason: str | None = None
    value: str | None = None  # a bounded preview
    error: str | None = None  # `code: message`, bounded


@dataclass
class GraphNode:
    id: str
    type: str
    label: str
    range: Range
    id_range: Range
    gated_by: list[str] = field(default_factory=list)  # the branch labels that gate it
    leaked: bool = False  # it runs also when a branch that gates it is not taken
    status: Status | None = None


@dataclass
class Read:
    field: str | None
    range: Range


@dataclass
class DrawnEdge:
    source: str
    target: str
    kind: str  # explicit | condition | parallel | data
    handles: list[str] = field(default_factory=list)  # a branch edge's `when`s / "default"
    notes: list[str] = field(default_factory=list)  # the explicit edges' own `label`s
    reads: list[Read] = field(default_factory=list)  # a data edge's reads
    ranges: list[Range] = field(default_factory=list)  # where each edge is written
    leak: bool = False

    @property
    def control(self) -> bool:
        return self.kind != "data"

    @property
    def label(self) -> str:
        if self.kind == "data":
            return ", ".join(dict.fromkeys(read.field or "template" for read in self.reads))
        return " · ".join(part for part in (" | ".join(self.handles), *self.notes) if part)


@dataclass
class Group:
    parallel: str
    members: list[str]
    merge: str | None


@dataclass
class WorkflowGraph:
    workflow_id: str | None
    nodes: list[GraphNode]
    edges: list[DrawnEdge]
    groups: list[Group]
    gates: list[BranchGate]
    leaks: list[Leak]
    leak_ranges: list[Range]
    run_ok: bool | None = None
    run_notes: list[str] = field(default_factory=list)

    def node(self, node_id: str) -> GraphNode | None:
        return next((node for node in self.nodes if node.id == node_id), None)

    def to_json(self, character: Callable[[Position], int] | None = None) -> dict[str, Any]:
        def point(position: Position) -> dict[str, int]:
            column = position.character if character is None else character(position)
            return {"line": position.line, "character": column}

        def span(range_: Range) -> dict[str, Any]:
            return {"start": point(range_.start), "end": point(range_.end)}

        answer: dict[str, Any] = {
            "version": GRAPH_JSON_VERSION,
            "workflow": self.workflow_id,
            "nodes": [_node_json(node, span) for node in self.nodes],
            "edges": [_edge_json(edge, span) for edge in self.edges],
            "groups": [{"parallel": group.parallel, "members": group.members,
                        "merge": group.merge} for group in self.groups],
            "gates": [{"condition": gate.condition, "handles": list(gate.handles),
                       "label": gate.label, "target": gate.target,
                       "gated": sorted(gate.gated), "runsAnyway": sorted(gate.runs_anyway)}
                      for gate in self.gates],
            "leaks": [{"node": leak.edge.target, "source": leak.edge.source,
                       "edge": leak.edge.kind, "field": leak.edge.read_field,
                       "branch": leak.gate.label,
                       "enclosing": [gate.label for gate in leak.enclosing],
                       "range": span(where)}
                      for leak, where in zip(self.leaks, self.leak_ranges, strict=True)],
        }
        if self.run_ok is not None:
            answer["run"] = {"ok": self.run_ok, "notes": self.run_notes}
        return answer


def _node_json(node: GraphNode, span: Callable[[Range], Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": node.id, "type": node.type, "label": node.label,
                             "range": span(node.range), "idRange": span(node.id_range),
                             "gatedBy": node.gated_by, "leaked": node.leaked}
    if node.status is not None:
        status: dict[str, Any] = {"state": node.status.state}
        for key in ("reason", "value", "error"):
            if (value := getattr(node.status, key)) is not None:
                status[key] = value
        entry["status"] = status
    return entry


def _edge_json(edge: DrawnEdge, span: Callable[[Range], Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"source": edge.source, "target": edge.target, "kind": edge.kind,
                             "label": edge.label, "leak": edge.leak,
                             "ranges": [span(where) for where in edge.ranges]}
    if edge.control:
        entry["handles"] = edge.handles
        entry["notes"] = edge.notes
    else:
        entry["reads"] = [{"field": read.field, "range": span(read.range)}
                          for read in edge.reads]
    return entry


def workflow_graph(
    workflow: Workflow, graph: Graph, source: SourceText, run: WorkflowRun | None = None,
    gates: list[BranchGate] | None = None,
) -> WorkflowGraph:
    """The graph's model; `gates`: `branch_gates(graph)` when the caller has them already."""
    if gates is None:
        gates = branch_gates(graph)
    found = leaks(graph, gates)
    nodes = [_graph_node(node_id, node, source)
             for node_id, node in workflow.nodes_by_id.items() if node.id_ref is not None]
    by_id = {node.id: node for node in nodes}
    for node_id, gating in gates_by_node(graph, gates).items():  # hover's facts
        by_id[node_id].gated_by = [gate.label for gate in gating]
        by_id[node_id].leaked = any(node_id in gate.runs_anyway for gate in gating)
    edges = _drawn_edges(workflow, graph, source, {leak.edge for leak in found})
    result = WorkflowGraph(workflow.id, nodes, edges, _groups(workflow, graph), gates, found,
                           [source.range(*leak.edge.span) for leak in found])
    if run is not None:
        secrets = _secret_values(run)
        for entry in run.nodes:
            if (drawn := by_id.get(entry.id)) is not None and drawn.status is None:
                value = _redacted(entry.value, secrets) if secrets else entry.value
                drawn.status = _status(entry.status, entry.reason, value, entry.error)
        result.run_ok, result.run_notes = run.ok, list(run.notes)
    return result


def _graph_node(node_id: str, node: NodeDef, source: SourceText) -> GraphNode:
    assert node.id_ref is not None
    label = node.string("label") or node_id
    start, end = node.mapping.span
    # a block mapping's span runs on to the next item's indentation: the declaration ends at its
    # last character, so a cursor before the next `- ` is not in it
    end = start + len(source.text[start:end].rstrip())
    return GraphNode(node_id, node.type or "unknown", label, source.range(start, end),
                     source.range(*node.id_ref.scalar.span))


def _drawn_edges(workflow: Workflow, graph: Graph, source: SourceText,
                 leaked: set[GraphEdge]) -> list[DrawnEdge]:
    # an explicit edge's handle is on its declaration's `from`; its graph edge holds its `to`
    declared: dict[int, Edge] = {id(edge.to): edge for edge in workflow.edges if edge.to}
    drawn: dict[tuple[str, str, bool], DrawnEdge] = {}
    for edge in graph.edges:
        control = edge.kind != "data"
        key = (edge.source, edge.target, control)
        current = drawn.get(key)
        if current is None:
            current = drawn[key] = DrawnEdge(edge.source, edge.target, edge.kind)
        elif control and _CONTROL_RANK[edge.kind] < _CONTROL_RANK[current.kind]:
            current.kind = edge.kind
        where = source.range(*edge.span)
        current.ranges.append(where)
        current.leak |= edge in leaked
        handle = _handle(edge, workflow, declared)
        if handle is not None and handle not in current.handles:
            current.handles.append(handle)
        note = _authored_label(edge, declared)
        if note and note not in current.notes:
            current.notes.append(note)
        if not control:
            current.reads.append(Read(edge.read_field, where))
    return list(drawn.values())


def _handle(edge: GraphEdge, workflow: Workflow, declared: dict[int, Edge]) -> str | None:
    """The `when` (or "default") a branch edge is taken on; None for an unconditional edge."""
    if not isinstance(edge.written, NodeRef):
        return None
    if edge.kind == "explicit":
        decl = declared.get(id(edge.written))
        return decl.handle if decl is not None else None
    if edge.kind != "condition":
        return None
    condition = workflow.nodes_by_id[edge.source]
    if condition.default is edge.written:
        return "default"
    branch = next((b for b in condition.branches if b.target is edge.written), None)
    return branch.handle if branch is not None else None


def _authored_label(edge: GraphEdge, declared: dict[int, Edge]) -> str | None:
    """An explicit edge's own `label` (the engine's edge schema carries one)."""
    decl = declared.get(id(edge.written)) if edge.kind == "explicit" else None
    ref = string_ref(entry_value(decl.mapping, "label")) if decl is not None else None
    return ref.id if ref is not None else None


def _groups(workflow: Workflow, graph: Graph) -> list[Group]:
    nodes = workflow.nodes_by_id
    merges = [node_id for node_id, node in nodes.items() if node.type == "merge"]
    groups = []
    for node_id, node in nodes.items():
        if node.type != "parallel":
            continue
        members = [m for m in dict.fromkeys(ref.id for ref in node.parallel_of) if m in nodes]
        if members:
            groups.append(Group(node_id, members, _paired_merge(graph, members, merges)))
    return groups


def _paired_merge(graph: Graph, members: list[str], merges: list[str]) -> str | None:
    """The merge whose `branches` begin with these members: the engine paired it with this
    parallel (`Graph.fan_in_branches` ranks the candidates)."""
    for merge in merges:
        own = [member for member in members if member != merge]
        producing = [m for m in own if graph.workflow.nodes_by_id[m].type not in CONTROL_TYPES]
        feeders = set(graph.predecessors.get(merge, ()))
        if own and feeders.issuperset(own) and producing and (
                graph.fan_in_branches(merge)[:len(producing)] == producing):
            return merge
    return None


SECRET_SHOWN = "[secret]"


def _secret_values(run: WorkflowRun) -> list[str]:
    """The samples' secret input and secret context values, as text."""
    found = [run.inputs.get(name) for name in run.secret_inputs]
    found += [run.ctx.get(key) for key in run.secret_ctx]
    return [text for value in found if (text := _as_text(value))]


def _as_text(value: Any) -> str | None:
    if value is None or value is UNDEFINED:
        return None
    return value if isinstance(value, str) else value_text(value)


def _redacted(value: Any, secrets: list[str]) -> Any:
    """The value with every string that holds a secret sample value replaced: an input node
    stores its inputs, secret ones included, and whatever reads it may carry one on."""
    if isinstance(value, str):
        return SECRET_SHOWN if any(secret in value for secret in secrets) else value
    if isinstance(value, dict):
        return {key: _redacted(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_redacted(item, secrets) for item in value]
    if value is not UNDEFINED and _as_text(value) in secrets:
        return SECRET_SHOWN
    return value


def _status(state: str, reason: str | None, value: Any,
            error: dict[str, Any] | None) -> Status:
    status = Status(state, reason)
    if value is not UNDEFINED:
        status.value = value_text(value, VALUE_PREVIEW_LIMIT)
    if error is not None:
        said = f"{error.get('code')}: {error.get('message')}"
        status.error = said if len(said) <= MESSAGE_LIMIT else said[: MESSAGE_LIMIT - 1] + "…"
    return status


class NotDrawable(Exception):
    """The file has no workflow graph: the reason, in `check`'s words."""


def result_graph(result: AnalysisResult, run: WorkflowRun | None = None) -> WorkflowGraph:
    """The graph of an analysed file; raises NotDrawable when it is not a workflow whose nodes
    can be read (a file with errors still draws what its model holds)."""
    if result.kind is FileKind.AGENT:
        raise NotDrawable("this is an agent file, not a workflow: draw the workflow whose agent "
                          "nodes use it")
    if result.workflow is None or result.graph is None or result.workflow.body is None:
        raise NotDrawable(f"nothing to draw: {why_no_workflow(result)}; `relavium-lsp check` "
                          "lists every problem")
    return workflow_graph(result.workflow, result.graph, result.source, run,
                          result.branch_gates())
