"""A symbol index over one workflow: where each node id, input, context key and agent id is
declared and where it is referred to, and "what is at this offset".

Contract:
- `symbol_index(workflow)` (cached per model, never raises) → `SymbolIndex`, whose
  `occurrences` are in document order. Each `Occurrence` is the span of the NAME's own characters
  (inside any quotes; for `from: 'route:high'` only `route`), as document offsets.
- A condition's branch declares the handle `cond:when` (its `when` scalar); edges' `from` use it.
- Node ids are referenced by edges (`from`, handle stripped, and `to`), `target_node`, `default`,
  `parallel_of`, literal `run.outputs` reads in expressions (every form the expression facts
  find) and `{{ run.outputs[…] }}` / `{{ run.outputs.x }}` in templates; inputs by `inputs.x` and
  `{{ inputs.x }}`; context keys by `ctx.x` and `{{ ctx.x }}`; agents by `agent_ref`.
- `reader` names the node whose expression or template holds a read (for "is the target an
  ancestor?"); `exact` is False when the scalar's source could not be mapped character by
  character (the span then collapses to the scalar's start; rename refuses such places).
- `SymbolIndex.at(offset)` → the occurrence under the cursor (a cursor just after a name counts);
  `definition(kind, name)` → the first declaration; `references(kind, name)` → every occurrence.
- `expression_at(workflow, offset)` → the expression field and decoded index under the cursor.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar
from weakref import WeakKeyDictionary

from analysis.document.expressions import ReadForm, analyze_expression
from analysis.document.model import ExpressionField, NodeDef, NodeRef, TemplateField, Workflow
from analysis.document.scalar_offsets import ScalarText

F = TypeVar("F", bound=ScalarText)


class SymbolKind(StrEnum):
    NODE = "node"
    INPUT = "input"
    CONTEXT = "context"
    AGENT = "agent"
    HANDLE = "handle"  # `cond:handle`: declared by a branch's `when`, used by edges' `from`


class Role(StrEnum):
    DEFINITION = "definition"
    EDGE_FROM = "edge-from"
    EDGE_TO = "edge-to"
    TARGET_NODE = "target-node"
    DEFAULT = "default"
    PARALLEL_OF = "parallel-of"
    AGENT_REF = "agent-ref"
    EXPRESSION = "expression"  # a read inside a JavaScript expression
    TEMPLATE = "template"  # a `{{ … }}` reference in a template field


@dataclass(frozen=True, eq=False)
class Occurrence:
    kind: SymbolKind
    name: str
    start: int
    end: int
    role: Role
    text: ScalarText  # the YAML scalar the name is written in
    decoded: tuple[int, int]  # the name's span in `text.value`
    reader: str | None = None  # the node whose expression/template reads it
    # how an output read spells the key ("dot" needs rewriting for a non-identifier id)
    form: ReadForm | None = None

    @property
    def exact(self) -> bool:
        return self.text.exact

    @property
    def is_definition(self) -> bool:
        return self.role is Role.DEFINITION

    def covers(self, offset: int) -> bool:
        return self.start <= offset <= self.end


@dataclass(frozen=True, eq=False)
class SymbolIndex:
    workflow: Workflow
    occurrences: tuple[Occurrence, ...]

    def at(self, offset: int) -> Occurrence | None:
        """The occurrence under `offset`, preferring one that strictly contains it (an inexact
        one has no place of its own to be under)."""
        touching = [o for o in self.occurrences if o.exact and o.covers(offset)]
        inside = [o for o in touching if o.start <= offset < o.end]
        found = inside or touching
        return found[0] if found else None

    def definition(self, kind: SymbolKind, name: str) -> Occurrence | None:
        return next(
            (o for o in self.occurrences if o.is_definition and o.kind is kind and o.name == name),
            None,
        )

    def references(self, kind: SymbolKind, name: str) -> list[Occurrence]:
        return [o for o in self.occurrences if o.kind is kind and o.name == name]


_CACHE: WeakKeyDictionary[Workflow, SymbolIndex] = WeakKeyDictionary()


def symbol_index(workflow: Workflow) -> SymbolIndex:
    """The model's index, built once per model."""
    index = _CACHE.get(workflow)
    if index is None:
        index = build_index(workflow)
        _CACHE[workflow] = index
    return index


def build_index(workflow: Workflow) -> SymbolIndex:
    found = sorted(_collect(workflow), key=lambda o: (o.start, o.end))
    return SymbolIndex(workflow, tuple(found))


def _in_text(
    kind: SymbolKind,
    text: ScalarText,
    start: int,
    end: int,
    role: Role,
    name: str,
    reader: str | None = None,
    form: ReadForm | None = None,
) -> Occurrence:
    """An occurrence of decoded characters `[start, end)` of a scalar."""
    doc_start, doc_end = text.source_span(start, end)
    return Occurrence(kind, name, doc_start, doc_end, role, text, (start, end), reader, form)


def _whole(workflow: Workflow, kind: SymbolKind, ref: NodeRef, role: Role) -> Occurrence:
    text = ScalarText(ref.scalar, workflow.source)
    return _in_text(kind, text, 0, len(text.value), role, ref.id)


def _collect(workflow: Workflow) -> Iterator[Occurrence]:
    node, inp, ctx, agent = SymbolKind.NODE, SymbolKind.INPUT, SymbolKind.CONTEXT, SymbolKind.AGENT
    for decl in workflow.inputs:
        if decl.name_ref is not None:
            yield _whole(workflow, inp, decl.name_ref, Role.DEFINITION)
    for entry in workflow.context:
        if entry.key_ref is not None:
            yield _whole(workflow, ctx, entry.key_ref, Role.DEFINITION)
    for declared in workflow.agents:
        if declared.id_ref is not None:
            yield _whole(workflow, agent, declared.id_ref, Role.DEFINITION)
    for item in workflow.nodes:
        yield from _node_occurrences(workflow, item)
    for edge in workflow.edges:
        if edge.from_field is not None and edge.source:
            yield _in_text(node, edge.from_field, 0, len(edge.source), Role.EDGE_FROM, edge.source)
            if edge.handle is not None:
                yield _in_text(SymbolKind.HANDLE, edge.from_field, len(edge.source) + 1,
                               len(edge.from_field.value), Role.EDGE_FROM,
                               _handle_name(workflow, edge.source, edge.handle))
        if edge.to is not None:
            yield _whole(workflow, node, edge.to, Role.EDGE_TO)
    for template in workflow.template_fields():
        yield from _template_occurrences(template)


def _handle_name(workflow: Workflow, source: str, handle: str) -> str:
    """`cond:when` as its branch declares it, so `gate:1.0` is a use of `when: 1`'s handle."""
    node = workflow.node(source)
    branch = node.branch_for(handle) if node is not None else None
    return f"{source}:{branch.handle if branch is not None else handle}"


def _node_occurrences(workflow: Workflow, item: NodeDef) -> Iterator[Occurrence]:
    node = SymbolKind.NODE
    if item.id_ref is not None:
        yield _whole(workflow, node, item.id_ref, Role.DEFINITION)
    for branch in item.branches:
        if branch.target is not None:
            yield _whole(workflow, node, branch.target, Role.TARGET_NODE)
        if item.id is not None and branch.when is not None and branch.handle is not None:
            when = ScalarText(branch.when, workflow.source)
            yield _in_text(SymbolKind.HANDLE, when, 0, len(when.value), Role.DEFINITION,
                           f"{item.id}:{branch.handle}")
    if item.default is not None:
        yield _whole(workflow, node, item.default, Role.DEFAULT)
    for member in item.parallel_of:
        yield _whole(workflow, node, member, Role.PARALLEL_OF)
    if item.agent_ref is not None:
        yield _whole(workflow, SymbolKind.AGENT, item.agent_ref, Role.AGENT_REF)
    if item.expression is not None:
        yield from _expression_occurrences(item.expression)


_SCOPE_KINDS = {"inputs": SymbolKind.INPUT, "ctx": SymbolKind.CONTEXT}


def _expression_occurrences(field: ExpressionField) -> Iterator[Occurrence]:
    facts = analyze_expression(field.value)
    reader = field.node.id
    for read in facts.output_reads:
        yield _in_text(SymbolKind.NODE, field, read.key.start, read.key.end, Role.EXPRESSION,
                       read.node_id, reader, read.form)
    for scope_read in facts.scope_reads:
        yield _in_text(_SCOPE_KINDS[scope_read.binding], field, scope_read.key.start,
                       scope_read.key.end, Role.EXPRESSION, scope_read.key_name, reader)


_TEMPLATE_KINDS = {**_SCOPE_KINDS, "run.outputs": SymbolKind.NODE}


def template_reader(template: TemplateField) -> str | None:
    """The node a template field belongs to (None for context values and agent prompts)."""
    return template.owner.id if isinstance(template.owner, NodeDef) else None


def _template_occurrences(template: TemplateField) -> Iterator[Occurrence]:
    reader = template_reader(template)
    for ref in template.references:
        kind = _TEMPLATE_KINDS.get(ref.kind or "")
        if kind is None or ref.name is None:
            continue
        form = None
        if kind is SymbolKind.NODE:
            quoted = template.value[ref.name_start - 1] in "\"'"
            form = ReadForm.BRACKET if quoted else ReadForm.DOT
        yield _in_text(kind, template, ref.name_start, ref.name_end, Role.TEMPLATE, ref.name,
                       reader, form)


def _scalar_at(fields: Iterable[F], offset: int) -> tuple[F, int] | None:
    for field in fields:
        scalar = field.scalar
        if scalar.content_start <= offset <= scalar.end:
            index = field.decoded_index_of(offset)
            if index is not None:
                return field, index
    return None


def expression_at(workflow: Workflow, offset: int) -> tuple[ExpressionField, int] | None:
    """The expression field whose scalar holds `offset`, and the decoded index there."""
    return _scalar_at(workflow.expression_fields(), offset)


def template_at(workflow: Workflow, offset: int) -> tuple[TemplateField, int] | None:
    """The template field whose scalar holds `offset`, and the decoded index there."""
    return _scalar_at(workflow.template_fields(), offset)


def node_at(workflow: Workflow, offset: int) -> NodeDef | None:
    """The node whose mapping holds `offset`."""
    return next(
        (item for item in workflow.nodes if item.mapping.start <= offset < item.mapping.end), None
    )
