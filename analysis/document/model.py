"""The typed workflow model over the YAML tree, with a span for every key and value.

Contract (read by the server and the expression rules):
- `build_workflow(document)` (built in `analysis.document.model_build`) never raises and never
  rejects: it keeps whatever is well-typed and skips the rest (the schema rules report what is
  wrong). `build_workflow(document, previous)` gives an equal model, taking over `previous`'s
  declarations of the items `document` shares with it (also those a `take_over` read moved in
  place: a declaration caches nothing that a move would make wrong). All spans are document
  offsets (`SourceText.range(start, end)` makes a `Range`).
- `Workflow`: `id`, `inputs`, `context`, `agents`, `nodes`, `edges` in authored order, plus
  `node(id)` (first node with that id), `expression_fields()` and `template_fields()`.
- `NodeDef`: `id`, `type`, `entry(name)` → the `YEntry` (key and value nodes with spans) of a
  field, typed helpers for the graph (`branches`, `default`, `parallel_of`, `agent_ref`,
  `merge_strategy`), `expression` (an `ExpressionField` for `expression` / `transform` /
  `merge_fn` when it is a string) and `templates` (its template fields).
- `ExpressionField` and `TemplateField` are `ScalarText`s (`analysis.document.scalar_offsets`):
  the decoded string and its offsets in the document. Ids and names are `NodeRef`s: the string
  and its scalar (for spans).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from analysis.document.scalar_offsets import ScalarText
from analysis.document.source import SourceText
from analysis.document.templates import TemplateRef, find_references
from analysis.document.yaml_nodes import YamlDocument, YEntry, YMapping, YNode, YScalar, YSequence
from analysis.naming import JS_WHITESPACE, js_number, js_string

# An agent id → the mapping of the agent another file defines (a workspace's
# `Resolution.file_agent`, `AnalysisResult.file_agent`), or None when no file defines it.
FileAgent = Callable[[str], YMapping | None]

EXPRESSION_FIELDS = {"condition": "expression", "transform": "transform", "merge": "merge_fn"}
NODE_TEMPLATE_FIELDS = {
    "agent": ("prompt_template", "system_prompt_append"),
    "human_gate": ("assignee", "message_template"),
    "output": ("save_to",),
}
# Template fields the engine sends as authored text, never interpolated (it still refuses a secret
# in them: packages/core/src/interpolation/collect.ts lists them as leak sites).
VERBATIM_TEMPLATE_FIELDS = frozenset({"system_prompt", "system_prompt_append"})
# Template fields whose `{{ run.outputs["id"] }}` references become data edges.
DATA_EDGE_FIELDS = frozenset(
    {"prompt_template", "system_prompt_append", "system_prompt", "assignee", "message_template"}
)


def _owned_by(owner: Any) -> weakref.ReferenceType[Any]:
    """A field's link to the declaration that holds it. Weak: the declaration holds its fields,
    and a strong link back made every analysis's model cyclic garbage, which only the cyclic
    collector frees (its full passes were the latency spikes of large documents); without the
    cycle the whole result goes by reference counting. The declaration lives as long as the
    workflow that holds both."""
    return weakref.ref(owner)


def _owner(link: weakref.ReferenceType[Any]) -> Any:
    owner = link()
    assert owner is not None, "a field outlived its workflow"
    return owner


class ExpressionField(ScalarText):
    """A bare JavaScript expression: `expression`, `transform` or `merge_fn`."""

    def __init__(self, scalar: YScalar, source: SourceText, node: NodeDef, name: str) -> None:
        super().__init__(scalar, source)
        self._node = _owned_by(node)
        self.name = name

    @property
    def node(self) -> NodeDef:
        node: NodeDef = _owner(self._node)
        return node

    @property
    def kind(self) -> str:
        """The sandbox kind: "condition", "transform" or "merge"."""
        return self.node.type or ""


class TemplateField(ScalarText):
    """A `{{ … }}` template field. `owner` is a node, context entry or agent declaration."""

    def __init__(self, scalar: YScalar, source: SourceText, owner: object, name: str) -> None:
        super().__init__(scalar, source)
        self._owner = _owned_by(owner)
        self.name = name

    @property
    def owner(self) -> object:
        """The node, context entry or agent declaration."""
        return _owner(self._owner)

    @cached_property
    def references(self) -> tuple[TemplateRef, ...]:
        return find_references(self.value) if "{{" in self.value else ()


@dataclass(eq=False, slots=True)
class NodeRef:
    """A node id, name or key written somewhere: its text and the scalar it sits in. Not
    frozen (never changed, though): a frozen dataclass's __init__ costs three times as much, and
    every analysis makes one per reference (thousands in a large workflow)."""

    id: str
    scalar: YScalar

    @property
    def span(self) -> tuple[int, int]:
        return self.scalar.span


@dataclass(eq=False)
class Branch:
    index: int
    mapping: YMapping
    when: YScalar | None
    target: NodeRef | None

    @property
    def handle(self) -> str | None:
        """The `from: 'cond:handle'` spelling of this branch: JavaScript's String(when)."""
        if self.when is None or self.when.value is None:
            return None
        return js_string(self.when.value)


def string_ref(node: YNode | None) -> NodeRef | None:
    if isinstance(node, YScalar) and isinstance(node.value, str):
        return NodeRef(node.value, node)
    return None


def entry_value(mapping: YMapping, name: str) -> YNode | None:
    entry = mapping._index.get(name)  # what YMapping.get does, without a call per field
    return entry.value if entry else None


def mappings(node: YNode | None) -> Iterator[tuple[int, YMapping]]:
    if isinstance(node, YSequence):
        for index, item in enumerate(node.items):
            if isinstance(item, YMapping):
                yield index, item


@dataclass(eq=False)
class NodeDef:
    index: int
    mapping: YMapping
    id_ref: NodeRef | None
    type: str | None
    expression: ExpressionField | None = None
    templates: list[TemplateField] = field(default_factory=list)

    @property
    def id(self) -> str | None:
        return self.id_ref.id if self.id_ref else None

    def entry(self, name: str) -> YEntry | None:
        return self.mapping.get(name)

    def string(self, name: str) -> str | None:
        ref = string_ref(entry_value(self.mapping, name))
        return ref.id if ref else None

    @cached_property
    def branches(self) -> list[Branch]:
        result = []
        for index, item in mappings(entry_value(self.mapping, "branches")):
            when = item.get("when")
            result.append(Branch(
                index, item, when.value if when and isinstance(when.value, YScalar) else None,
                string_ref(entry_value(item, "target_node")),
            ))
        return result

    @cached_property
    def handles(self) -> list[str]:
        """The branches' handles, in order (a branch without a `when` has none)."""
        return [handle for branch in self.branches if (handle := branch.handle) is not None]

    @cached_property
    def _branches_by_handle(self) -> tuple[dict[str, Branch], dict[float, Branch]]:
        """The first branch of each handle, and of each numeric `when`'s value: one lookup per
        edge (a scan per edge made a condition with many branches cost their square)."""
        exact: dict[str, Branch] = {}
        numeric: dict[float, Branch] = {}
        for branch in self.branches:
            handle = branch.handle
            if handle is None:
                continue
            exact.setdefault(handle, branch)
            value = branch.when.value if branch.when is not None else None
            # NaN equals nothing, not even a NaN key
            if isinstance(value, int | float) and not isinstance(value, bool) and value == value:
                numeric.setdefault(value, branch)
        return exact, numeric

    def branch_for(self, handle: str) -> Branch | None:
        """The first branch the handle names (the engine routes by the first match), or None.
        A handle names a branch as the engine decides (dag.ts validateHandle): by the exact
        String(when), or for a numeric `when` when non-blank and Number(handle) equals it
        (`1.0`, `01`, `0x1`, ` 1` all name `when: 1`)."""
        exact, numeric = self._branches_by_handle
        found = exact.get(handle)
        if numeric and handle.strip(JS_WHITESPACE) != "":
            by_number = numeric.get(js_number(handle))
            if by_number is not None and (found is None or by_number.index < found.index):
                found = by_number
        return found

    @cached_property
    def default(self) -> NodeRef | None:
        return string_ref(entry_value(self.mapping, "default"))

    @cached_property
    def parallel_of(self) -> list[NodeRef]:
        members = entry_value(self.mapping, "parallel_of")
        if not isinstance(members, YSequence):
            return []
        return [ref for ref in map(string_ref, members.items) if ref is not None]

    @cached_property
    def agent_ref(self) -> NodeRef | None:
        return string_ref(entry_value(self.mapping, "agent_ref"))

    @property
    def merge_strategy(self) -> str | None:
        return self.string("merge_strategy")

    def scalar_texts(self) -> Sequence[ScalarText]:
        return [self.expression, *self.templates] if self.expression else self.templates


@dataclass(eq=False)
class Edge:
    index: int
    mapping: YMapping
    from_field: ScalarText | None
    to: NodeRef | None

    # The node id before the first `:` of `from`, and the handle after it. Set at once: every
    # edge's are read, and a cached_property's first read takes a lock on Python 3.11.
    source: str | None = field(init=False)
    handle: str | None = field(init=False)

    def __post_init__(self) -> None:
        written = self.from_field.value if self.from_field is not None else None
        source, colon, handle = written.partition(":") if written is not None else (None, "", "")
        self.source = source
        self.handle = handle if colon else None

    def source_span(self) -> tuple[int, int]:
        assert self.from_field is not None and self.source is not None
        return self.from_field.source_span(0, len(self.source))

    def handle_span(self) -> tuple[int, int]:
        assert self.from_field is not None and self.source is not None
        return self.from_field.source_span(len(self.source) + 1, len(self.from_field.value))

    def scalar_texts(self) -> Sequence[ScalarText]:
        return [self.from_field] if self.from_field else []


@dataclass(eq=False)
class InputDecl:
    index: int
    mapping: YMapping
    name_ref: NodeRef | None
    type: str | None

    @property
    def name(self) -> str | None:
        return self.name_ref.id if self.name_ref else None

    @property
    def secret(self) -> bool:
        return self.type == "secret"

    def scalar_texts(self) -> Sequence[ScalarText]:
        return []

    @cached_property
    def default_references(self) -> tuple[TemplateRef, ...]:
        """The `{{ … }}` references of a string `default` (the engine resolves it as a template
        before the run; a structured default is never interpolated)."""
        entry = self.mapping.get("default")
        value = entry.value if entry is not None else None
        if isinstance(value, YScalar) and isinstance(value.value, str) and "{{" in value.value:
            return find_references(value.value)
        return ()


@dataclass(eq=False)
class ContextDecl:
    index: int
    mapping: YMapping
    key_ref: NodeRef | None
    value: TemplateField | None

    @property
    def key(self) -> str | None:
        return self.key_ref.id if self.key_ref else None

    def scalar_texts(self) -> Sequence[ScalarText]:
        return [self.value] if self.value else []


@dataclass(eq=False)
class AgentDecl:
    index: int
    mapping: YMapping
    id_ref: NodeRef | None
    is_ref: bool  # a `{$ref: path}` entry: its fields live in another file
    system_prompt: TemplateField | None

    @property
    def id(self) -> str | None:
        return self.id_ref.id if self.id_ref else None

    def scalar_texts(self) -> Sequence[ScalarText]:
        return [self.system_prompt] if self.system_prompt else []


@dataclass(eq=False)
class Workflow:
    source: SourceText
    document: YamlDocument
    root: YMapping | None
    body: YMapping | None  # the `workflow:` mapping
    id_ref: NodeRef | None
    inputs: list[InputDecl]
    context: list[ContextDecl]
    agents: list[AgentDecl]
    nodes: list[NodeDef]
    edges: list[Edge]

    @property
    def id(self) -> str | None:
        return self.id_ref.id if self.id_ref else None

    @cached_property
    def nodes_by_id(self) -> dict[str, NodeDef]:
        result: dict[str, NodeDef] = {}
        for node in self.nodes:
            if node.id is not None:
                result.setdefault(node.id, node)
        return result

    def node(self, node_id: str) -> NodeDef | None:
        return self.nodes_by_id.get(node_id)

    @cached_property
    def agents_by_id(self) -> dict[str, AgentDecl]:
        result: dict[str, AgentDecl] = {}
        for agent in self.agents:
            if agent.id is not None:
                result.setdefault(agent.id, agent)
        return result

    def expression_fields(self) -> Iterator[ExpressionField]:
        return (node.expression for node in self.nodes if node.expression is not None)

    def template_fields(self) -> Iterator[TemplateField]:
        for entry in self.context:
            if entry.value is not None:
                yield entry.value
        for agent in self.agents:
            if agent.system_prompt is not None:
                yield agent.system_prompt
        for node in self.nodes:
            yield from node.templates

    def agent_for(self, node: NodeDef) -> AgentDecl | None:
        return self.agents_by_id.get(node.agent_ref.id) if node.agent_ref else None

    def output_schema_of(self, node: NodeDef,
                         file_agent: FileAgent | None = None) -> YEntry | None:
        """The `output_schema` the node's output is held to: its own, and an agent node's
        falls back to its agent's (the engine's `node.output_schema ?? agent.output_schema`,
        packages/core/src/engine/agent-runner.ts). The agent is the inline one, else, given
        `file_agent` (an id → the mapping of the agent another file defines, as a workspace's
        `Resolution.file_agent` answers), the one there: then the entry is that file's, its
        offsets in that file. None when neither declares one or the agent is not known."""
        own = _declared(node.mapping.get("output_schema"))
        if own is not None or node.type != "agent" or node.agent_ref is None:
            return own
        agent = self.agent_for(node)
        if agent is not None:
            return None if agent.is_ref else _declared(agent.mapping.get("output_schema"))
        mapping = file_agent(node.agent_ref.id) if file_agent is not None else None
        return _declared(mapping.get("output_schema")) if mapping is not None else None


def _declared(entry: YEntry | None) -> YEntry | None:
    """The entry unless it is absent or null (`??` passes over both)."""
    if entry is None or (isinstance(entry.value, YScalar) and entry.value.value is None):
        return None
    return entry
