"""Completion candidates by cursor context (pure; the server only translates them to LSP).

Contract: `complete(result, text, offset)` → `Candidate`s for the cursor at `offset` in `text`,
the document as the editor has it now, which may be half-typed and newer than `result` (the last
analysis that produced a model). The context is read from the live text around the cursor (the
YAML key the cursor's value belongs to, the node item holding it, the expression or template
prefix on the cursor's line); the facts (node ids, ancestors, inputs, context keys, agents) come
from `result`. Each candidate's `replace` is a live-text offset range. Never raises.

Contexts and what they offer:
- expression fields (`expression`, `transform`, `merge_fn`): `run.outputs.` / `run.outputs["` →
  the ancestors of the node only, conditions left out (they store no output); `inputs.` →
  declared inputs (secrets marked and ranked last);
  `ctx.` → context keys (secret-derived ones likewise); `Math.`, `JSON.`, … → members (no
  `Math.random`); a name being typed → the scope bindings (`branches` only in `merge_fn`) and the
  sandbox's globals. Nothing inside strings and comments.
- below a value in either (`run.outputs["x"].`, `run.outputs.x?.`, `inputs.x.`, `branches[0].`
  in a merge_fn, `…labels[0].`, `["`): the members of its type (`analysis.ide.completion_typed`,
  types from `analysis.ide.typed_reads`), nothing where the type is unknown.
- template fields, inside an open `{{`: `inputs.`, `ctx.`, `run.outputs["` (nodes with an output
  that can feed this node without a cycle; none in a context value, where run.outputs is
  refused).
- YAML values: node ids for `to`/`from`/`target_node`/`default`/`parallel_of` (and a condition's
  handles after `from: id:`), agent ids for `agent_ref`, and wherever the schema
  (`analysis.schema.workflow`) describes the value as an enum or a boolean, its values.
- YAML keys (a word, or nothing, alone on a block-mapping line): the keys the schema accepts in
  that mapping (a node's by its type, an input's validation by the input's type, …) that it does
  not have yet, each with its one-line doc. The half-typed line is read with a placeholder key
  (`completion_text.schema_place`), so the mapping is found even before the key exists.
- `model` values (an agent's, a fallback alternate's, an agent node's override): the engine
  registry's model ids (`analysis.schema.models`) for the provider of that agent, each with its
  display name and context window; deprecated ones last.
- An agent file (`result.kind` is an agent's): its schema's keys and values, read from
  `analysis.schema.agent_file.AGENT_FILE`, and its `model` ids as above.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from pathlib import PurePath

from analysis.checks.analyze import AnalysisResult
from analysis.document.graph import Graph
from analysis.document.model import NodeDef, Workflow
from analysis.document.yaml_nodes import YScalar
from analysis.ide.candidates import Candidate, CandidateKind
from analysis.ide.completion_schema import (
    KEY_PREFIX,
    complete_agent_file,
    key_candidates,
    model_candidates,
    schema_values,
    typed_value,
)
from analysis.ide.completion_text import EXPRESSION_KEYS, TEMPLATE_KEYS, Cursor, Field
from analysis.ide.completion_typed import typed_members
from analysis.ide.describe import (
    BINDING_DOCS,
    GLOBAL_DOCS,
    MEMBER_DOCS,
    context_summary,
    file_agent_text,
    input_summary,
    node_summary,
)
from analysis.ide.read_path import Dialect, ReadPath, Typing, typing_at
from analysis.ide.typed_reads import typed_reads
from analysis.project.kinds import FileKind
from analysis.project.workspace import AgentEntry, Resolution

NODE_REFERENCE_KEYS = frozenset({"to", "from", "target_node", "default", "parallel_of"})
# a key being typed on its own line (block mapping), after any list dashes
_JS_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")

_WS = r"[ \t]*"
_IDENT = r"[A-Za-z_$][A-Za-z0-9_$]*"
_FREE = r"(?<![A-Za-z0-9_$.])"
_OUTPUTS_BRACKET = re.compile(
    rf"{_FREE}run{_WS}\??\.{_WS}outputs{_WS}(?:\?\.)?{_WS}\[{_WS}([\"'])([^\"'\\]*)\Z"
)
_OUTPUTS_DOT = re.compile(
    rf"{_FREE}run{_WS}\??\.{_WS}outputs{_WS}\??(\.){_WS}([A-Za-z_$][A-Za-z0-9_$]*)?\Z"
)
_RUN_DOT = re.compile(rf"{_FREE}run{_WS}\??\.{_WS}([A-Za-z_$][A-Za-z0-9_$]*)?\Z")
_MEMBER = re.compile(rf"{_FREE}({_IDENT}){_WS}\??\.{_WS}({_IDENT})?\Z")
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_TEMPLATE_HEAD = re.compile(r"[ \t]*([A-Za-z_$][A-Za-z0-9_$]*)?\Z")
_TEMPLATE_SCOPE = re.compile(r"[ \t]*(inputs|ctx)[ \t]*\.[ \t]*([A-Za-z0-9_-]*)\Z")
_TEMPLATE_BRACKET = re.compile(r"[ \t]*run[ \t]*\.[ \t]*outputs[ \t]*\[[ \t]*([\"'])([^\"'\\]*)\Z")
_TEMPLATE_DOT = re.compile(r"[ \t]*run[ \t]*\.[ \t]*outputs[ \t]*(\.)[ \t]*([A-Za-z0-9_$]*)\Z")


def _in_literal(code: str) -> bool:
    """Whether the end of `code` is inside a string, template or comment."""
    quote = ""
    index = 0
    while index < len(code):
        char = code[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif code.startswith("//", index):
            return True
        elif code.startswith("/*", index):
            close = code.find("*/", index + 2)
            if close == -1:
                return True
            index = close + 1
        index += 1
    return bool(quote)


def complete(result: AnalysisResult, text: str, offset: int,
             resolution: Resolution | None = None) -> list[Candidate]:
    """`resolution` (the workspace agent index's, when the workflow is in a project) adds the
    agent files' agents to `agent_ref`'s candidates."""
    if result.kind is FileKind.AGENT:
        return complete_agent_file(text, offset)
    workflow, graph = result.workflow, result.graph
    if workflow is None or graph is None:
        return []
    cursor = Cursor(text, offset)
    field = cursor.field()
    if field is not None and (field.key in EXPRESSION_KEYS or field.key in TEMPLATE_KEYS):
        facts = _Facts(workflow, graph, cursor, field, resolution)
        return facts.expression() if field.key in EXPRESSION_KEYS else facts.template()
    if (typed_key := KEY_PREFIX.match(cursor.prefix)) is not None:
        return key_candidates(text, cursor.offset, typed_key.group(1) or "")
    if field is None:
        return []
    facts = _Facts(workflow, graph, cursor, field, resolution)
    if field.same_line:
        return facts.yaml_value()
    return []


class _Facts:
    def __init__(self, workflow: Workflow, graph: Graph, cursor: Cursor, field: Field,
                 resolution: Resolution | None = None) -> None:
        self.workflow = workflow
        self.resolution = resolution
        self.file_agent = resolution.file_agent if resolution is not None else None
        self.graph = graph
        self.cursor = cursor
        self.field = field
        self.offset = cursor.offset

    @property
    def prefix(self) -> str:
        """The field's text before the cursor on the cursor's line."""
        return self.field.value_prefix if self.field.same_line else self.cursor.prefix

    def reader(self) -> NodeDef | None:
        node_id = self.cursor.sibling(self.field, "id")
        return self.workflow.node(node_id) if node_id else None

    def quote(self) -> str:
        """The JavaScript quote that needs no escaping in the field's YAML scalar."""
        key_line = self.cursor.lines[self.field.line]
        value = key_line[self.field.column + len(self.field.key):].lstrip(" \t:")
        return "'" if value.startswith('"') else '"'

    def span(self, typed: str) -> tuple[int, int]:
        return (self.offset - len(typed), self.offset)

    # -- candidates ----------------------------------------------------------------------------

    def nodes(self, ids: list[str], typed: str, *, reader: str | None = None,
              relation: str = "") -> list[Candidate]:
        found = []
        for node_id in ids:
            node = self.workflow.node(node_id)
            if node is None:
                continue
            detail = f"{node.type or 'node'}" + (f" · {relation}" if relation else "")
            found.append(Candidate(node_id, CandidateKind.NODE, detail, self.span(typed),
                                   node_summary(self.workflow, node, self.file_agent)))
        return found

    def secret_refusal(self) -> str | None:
        """Who refuses a secret here: expressions deny the read, node and agent templates may
        not print it; a context value may be built from one (it becomes secret-derived)."""
        if self.field.key in EXPRESSION_KEYS:
            return "denied to expressions"
        return None if self.field.key == "value" else "templates may not print it"

    def inputs(self, typed: str) -> list[Candidate]:
        secret = self.graph.secret_inputs
        values = typed_reads(self.workflow, self.graph, self.file_agent).input_values()
        return self.declared(typed, CandidateKind.INPUT, [
            (decl.name, f"{decl.type} input{values.get(decl.name, '')}",
             "secret input" if decl.name in secret else None,
             input_summary(decl, decl.name in secret))
            for decl in self.workflow.inputs if decl.name is not None
        ])

    def context(self, typed: str) -> list[Candidate]:
        secret = self.graph.secret_context
        return self.declared(typed, CandidateKind.CONTEXT, [
            (entry.key, "context", "secret-derived context" if entry.key in secret else None,
             context_summary(entry, entry.key in secret))
            for entry in self.workflow.context if entry.key is not None
        ])

    def declared(self, typed: str, kind: CandidateKind,
                 entries: list[tuple[str, str, str | None, str]]) -> list[Candidate]:
        """Inputs or context keys: (name, detail, what a secret one is called, docs); secrets
        say who refuses them and sort last where they are refused."""
        refusal = self.secret_refusal()
        found = []
        for name, detail, secret, documentation in entries:
            if secret is not None:
                detail = f"{secret} — {refusal}" if refusal else secret
            found.append(Candidate(name, kind, detail, self.span(typed), documentation,
                                   rank=int(secret is not None and refusal is not None)))
        return found

    def authored(self, ids: AbstractSet[str]) -> list[str]:
        return [node.id for node in self.workflow.nodes
                if node.id is not None and node.id in ids and self.workflow.node(node.id) is node]

    def with_output(self, ids: AbstractSet[str]) -> list[str]:
        """`authored(ids)` without condition nodes: a condition stores no output, so reading it
        gives `undefined` (condition-output-read)."""
        return [node_id for node_id in self.authored(ids)
                if self.workflow.nodes_by_id[node_id].type != "condition"]

    # -- contexts ------------------------------------------------------------------------------

    def code_prefix(self) -> str:
        """The JavaScript before the cursor on this line (without a YAML quote opening it)."""
        if not self.field.same_line:
            return self.cursor.prefix
        value = self.field.value_prefix.lstrip(" \t")
        return value[1:] if value[:1] in ("'", '"') else value

    def expression(self) -> list[Candidate]:
        prefix = self.code_prefix()
        typing = typing_at(prefix, Dialect.EXPRESSION)
        if typing is not None and self.typed_read(typing.read):
            if _in_literal(prefix[: typing.read.start]):
                return []
            return self.typed(typing, Dialect.EXPRESSION, prefix)
        reader = self.reader()
        ancestors = (self.with_output(self.graph.ancestors(reader.id))
                     if reader and reader.id else [])
        ancestors = [node_id for node_id in ancestors if reader is None or node_id != reader.id]
        bracket = _OUTPUTS_BRACKET.search(prefix)
        if _in_literal(prefix[: bracket.start()] if bracket else prefix):
            return []
        if bracket is not None:
            quote = bracket.group(1)
            closing = "" if self.cursor.after.startswith(quote) else quote + "]"
            return [
                Candidate(c.label, c.kind, c.detail, c.replace, c.documentation,
                          insert=c.label + closing)
                for c in self.nodes(ancestors, bracket.group(2), relation="ancestor")
            ]
        if match := _OUTPUTS_DOT.search(prefix):
            return self.dotted_nodes(ancestors, match, "ancestor")
        if match := _RUN_DOT.search(prefix):
            return [Candidate("outputs", CandidateKind.BINDING, "run.outputs",
                              self.span(match.group(1) or ""), BINDING_DOCS["outputs"])]
        if match := _MEMBER.search(prefix):
            owner, typed = match.group(1), match.group(2) or ""
            if owner == "inputs":
                return self.inputs(typed)
            if owner == "ctx":
                return self.context(typed)
            return [Candidate(name, CandidateKind.MEMBER, doc, self.span(typed))
                    for name, doc in MEMBER_DOCS.get(owner, {}).items()]
        word = _WORD.search(prefix)
        if word is None:
            return []  # not after every space or operator: only once a name is being typed
        typed = word.group(0)
        before = prefix[: len(prefix) - len(typed)].rstrip()
        if before.endswith(".") or (before and before[-1] in "\"'`") or before[-1:].isdigit():
            return []
        bindings = [name for name in ("inputs", "ctx", "run", "branches")
                    if name != "branches" or self.field.key == "merge_fn"]
        return [
            Candidate(name, CandidateKind.BINDING, "scope binding", self.span(typed),
                      BINDING_DOCS[name]) for name in bindings
        ] + [
            Candidate(name, CandidateKind.GLOBAL, "sandbox global", self.span(typed), doc)
            for name, doc in GLOBAL_DOCS.items()
        ]

    def typed_read(self, read: ReadPath) -> bool:
        """Whether the read reaches a value whose members typed completion offers: below a node's
        output, an input or a context value, or `branches` in a merge_fn (the first levels,
        which name nodes, inputs and context keys, are offered above)."""
        if read.root == "run":
            return len(read.path) >= 2 and read.path[0] == "outputs"
        if read.root == "branches":
            return self.field.key == "merge_fn"
        return len(read.path) >= 1

    def typed(self, typing: Typing, dialect: Dialect, prefix: str) -> list[Candidate]:
        reader = self.reader()
        reads = typed_reads(self.workflow, self.graph, self.file_agent)
        if reader is None or reader.id is None or reads.denied(typing.read.root,
                                                               typing.read.path):
            return []
        return typed_members(reads, reader.id, typing, dialect,
                             text=self.cursor.text, offset=self.offset,
                             prefix_start=self.offset - len(prefix), quote=self.quote())

    def dotted_nodes(self, ids: list[str], match: re.Match[str], relation: str,
                     *, brackets: bool = False) -> list[Candidate]:
        """`run.outputs.x`: identifier ids as typed, others (or all, with `brackets`) rewritten to
        the bracket form from the `.` on. `match` searched a string ending at the cursor."""
        typed = match.group(2) or ""
        searched = match.string
        dot = match.start(1)
        # `run.outputs?.x` keeps its `?.`: `run.outputs?.["id"]`
        start = self.offset - len(searched) + dot + (1 if searched[dot - 1] == "?" else 0)
        quote = self.quote()
        if brackets and quote == "'":
            quote = '\\"'  # a template needs `"` for the edge: escaped in a double-quoted scalar
        found = []
        for candidate in self.nodes(ids, typed, relation=relation):
            if _JS_IDENTIFIER.match(candidate.label) and not brackets:
                found.append(candidate)
            else:
                found.append(Candidate(
                    candidate.label, candidate.kind, candidate.detail, (start, self.offset),
                    candidate.documentation, insert=f"[{quote}{candidate.label}{quote}]",
                    filter=self.cursor.text[start:self.offset - len(typed)] + candidate.label,
                ))
        return found

    def template(self) -> list[Candidate]:
        prefix = self.prefix
        opened = prefix.rfind("{{")
        if opened == -1 or prefix.rfind("}}") > opened:
            return []
        body = prefix[opened + 2 :]
        key = self.field.key
        typing = typing_at(body, Dialect.TEMPLATE)
        if typing is not None and self.typed_read(typing.read):
            return self.typed(typing, Dialect.TEMPLATE, body)
        if match := _TEMPLATE_SCOPE.match(body):
            typed = match.group(2)
            return self.inputs(typed) if match.group(1) == "inputs" else self.context(typed)
        if key == "value" or key == "save_to":
            feeders: list[str] = []  # context values and save_to may not read run.outputs
        else:
            feeders = self.feeders()
        if match := _TEMPLATE_BRACKET.match(body):
            closing = "" if self.cursor.after.startswith(match.group(1)) else match.group(1) + "]"
            return [
                Candidate(c.label, c.kind, c.detail, c.replace, c.documentation,
                          insert=c.label + closing)
                for c in self.nodes(feeders, match.group(2))
            ]
        if match := _TEMPLATE_DOT.match(body):
            # only the bracket-and-quote form orders the read (a data edge): always write it
            return self.dotted_nodes(feeders, match, "", brackets=True)
        if match := _TEMPLATE_HEAD.match(body):
            typed = match.group(1) or ""
            heads = [("inputs.", "a workflow input"), ("ctx.", "a context value")]
            if feeders:
                heads.append(('run.outputs["', "an upstream node's output (adds a data edge)"))
            if key == "save_to":
                heads.append(("run.id", "the run's id"))
            return [Candidate(label, CandidateKind.SNIPPET, detail, self.span(typed))
                    for label, detail in heads]
        return []

    def feeders(self) -> list[str]:
        """Nodes a template of this node may read: all with an output but itself and what runs
        after it (a data edge from those would close a cycle)."""
        reader = self.reader()
        if reader is None or reader.id is None:
            return self.with_output(set(self.workflow.nodes_by_id))
        after = {reader.id} | {
            node_id for node_id in self.workflow.nodes_by_id
            if reader.id in self.graph.ancestors(node_id)
        }
        return self.with_output(set(self.workflow.nodes_by_id) - after)

    def yaml_value(self) -> list[Candidate]:
        typed = typed_value(self.field)
        key = self.field.key
        if typed is None:
            return []
        if key in NODE_REFERENCE_KEYS:
            if key == "from" and ":" in typed:
                return self.handles(*typed.split(":", 1))
            if key == "to" and (targets := self.edge_targets()) is not None:
                return self.nodes(targets, typed)
            own = self.cursor.sibling(self.field, "id") if key != "from" and key != "to" else None
            ids = [node_id for node_id in self.authored(set(self.workflow.nodes_by_id))
                   if node_id != own]
            return self.nodes(ids, typed)
        if key == "agent_ref":
            return self.agents(typed)
        if key == "model":
            return model_candidates(self.cursor, typed, self.model_provider())
        return schema_values(self.cursor, self.field, typed)

    def agents(self, typed: str) -> list[Candidate]:
        """The inline agents, then (in a project) the agent files' agents no inline one hides."""
        inline = [agent.id for agent in self.workflow.agents
                  if agent.id is not None and not agent.is_ref]
        found = [Candidate(agent_id, CandidateKind.AGENT, "agent", self.span(typed))
                 for agent_id in inline]
        resolution = self.resolution
        if resolution is None:
            return found
        for agent_id in sorted(resolution.known_ids() - set(inline)):
            agent = resolution.agent(agent_id)
            if isinstance(agent, AgentEntry):
                found.append(Candidate(agent_id, CandidateKind.AGENT,
                                       f"agent · {PurePath(agent.path).name}", self.span(typed),
                                       file_agent_text(agent)))
            else:  # several files define it: which one a run would use is not defined
                found.append(Candidate(agent_id, CandidateKind.AGENT,
                                       "agent · defined in several files", self.span(typed)))
        return found

    def model_provider(self) -> str | None:
        """The provider a `model` value is for: its own mapping's (an agent, a fallback
        alternate), else, on an agent node, its agent's."""
        provider = self.cursor.sibling(self.field, "provider")
        agent_id = self.cursor.sibling(self.field, "agent_ref") if provider is None else None
        agent = self.workflow.agents_by_id.get(agent_id) if agent_id else None
        if agent is None:
            return provider
        entry = agent.mapping.get("provider")
        return entry.value.text if entry is not None and isinstance(entry.value, YScalar) else None

    def edge_targets(self) -> list[str] | None:
        """The only valid `to` of an edge whose `from` is a condition's handle (that branch's
        target) or a parallel (its members); None when any node may follow."""
        source = self.cursor.sibling(self.field, "from")
        if source is None:
            return None
        node_id, _, handle = source.partition(":")
        node = self.workflow.node(node_id)
        if node is None:
            return None
        if node.type == "parallel":
            return [member.id for member in node.parallel_of]
        if node.type == "condition" and handle:
            branch = node.branch_for(handle)
            return [branch.target.id] if branch is not None and branch.target is not None else []
        return None

    def handles(self, node_id: str, typed: str) -> list[Candidate]:
        node = self.workflow.node(node_id)
        if node is None or node.type != "condition":
            return []
        return [
            Candidate(branch.handle, CandidateKind.HANDLE,
                      f"branch → {branch.target.id if branch.target else '?'}", self.span(typed))
            for branch in node.branches if branch.handle is not None
        ]
