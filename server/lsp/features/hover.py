"""Hover: a node id or `run.outputs` key → the node and where it sits in the graph relative to the
reader; `inputs.x` / `ctx.x` / `agent_ref` → the declaration; an edge's `cond:handle` or a
branch's `when` → the branch; scope bindings and sandbox globals → one-line docs; and the
explanation of every diagnostic's rule under the cursor; a `model` value the engine's registry
carries → its display name, limits and price. In an agent file: the agent schema's doc of the
key under the cursor, the `model` value's registry facts and the rules of its diagnostics.
Any read (`inputs.x`, `run.outputs["x"].a`, `branches[0]`) adds its type and where the type
comes from (`analysis.ide.read_hover`)."""

from __future__ import annotations

import json
import re

from lsprotocol import types

from analysis.checks.registry import RULES, docs_url
from analysis.document.expressions import TokenKind, analyze_expression, semantic_tokens
from analysis.ide.describe import (
    BINDING_DOCS,
    FORBIDDEN_DOC,
    GLOBAL_DOCS,
    MEMBER_DOCS,
    agent_summary,
    code_span,
    context_summary,
    file_agent_text,
    gating_summary,
    input_summary,
    key_doc,
    model_doc,
    node_summary,
)
from analysis.ide.navigation import Occurrence, Role, SymbolKind, expression_at, symbol_index
from analysis.ide.read_hover import read_hover
from analysis.ide.typed_reads import typed_reads
from analysis.naming import js_string
from analysis.project.kinds import FileKind
from analysis.project.workspace import AgentEntry, Resolution
from analysis.schema.agent_file import AGENT_FILE
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.serving import View, agent_view_of, view_of

_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NAMED_TOKENS = frozenset(
    {TokenKind.VARIABLE, TokenKind.SCOPE_BINDING, TokenKind.FUNCTION, TokenKind.PROPERTY}
)


def _node_text(view: View, occurrence: Occurrence) -> str:
    workflow, graph = view.workflow, view.result.graph
    node = workflow.node(occurrence.name)
    if node is None or graph is None:
        return f"**{code_span(occurrence.name)}**: no node has this id"
    summary = node_summary(workflow, node, view.result.file_agent)
    lines = [f"**node {code_span(occurrence.name)}** · {summary}"]
    before = graph.predecessors.get(occurrence.name, [])
    after = graph.successors.get(occurrence.name, [])
    if before or after:
        lines.append(
            "runs after " + (", ".join(map(code_span, before)) or "nothing")
            + " · before " + (", ".join(map(code_span, after)) or "nothing")
        )
    if gated := gating_summary(graph, occurrence.name, view.result.branch_gates()):
        lines.append(gated)
    reader = occurrence.reader
    if reader is not None and occurrence.role in (Role.EXPRESSION, Role.TEMPLATE):
        name, by = code_span(occurrence.name), code_span(reader)
        if reader == occurrence.name:
            lines.append(f"✗ {by} reads its own output: `run.outputs` never holds it")
        elif occurrence.name in graph.ancestors(reader):
            lines.append(f"✓ an ancestor of {by}: its output is in `run.outputs` when "
                         f"{by} runs")
        else:
            lines.append(f"✗ not an ancestor of {by}: `run.outputs` does not hold it when "
                         f"{by} runs (add an edge from {name} to {by})")
    return "\n\n".join(lines)


def _declaration_text(view: View, occurrence: Occurrence, resolution: Resolution | None) -> str:
    workflow, graph = view.workflow, view.result.graph
    name = occurrence.name
    if occurrence.kind is SymbolKind.INPUT:
        decl = next((d for d in workflow.inputs if d.name == name), None)
        if decl is None:
            return f"**{code_span('inputs.' + name)}**: no input has this name"
        secret = graph is not None and name in graph.secret_inputs
        return f"**input {code_span(name)}** · {input_summary(decl, secret)}"
    if occurrence.kind is SymbolKind.CONTEXT:
        entry = next((c for c in workflow.context if c.key == name), None)
        if entry is None:
            return f"**{code_span('ctx.' + name)}**: no context entry has this key"
        secret = graph is not None and name in graph.secret_context
        return f"**context {code_span(name)}** · {context_summary(entry, secret)}"
    agent = (resolution.agent(name) if resolution is not None
             else workflow.agents_by_id.get(name))
    if isinstance(agent, AgentEntry):
        return f"**agent {code_span(name)}** · {file_agent_text(agent)}"
    if agent is not None:
        return f"**agent {code_span(name)}** · {agent_summary(agent)}"
    named = resolution.agents_named(name) if resolution is not None else []
    if len(named) > 1:
        return (f"**agent {code_span(name)}**: defined in several agent files ("
                + ", ".join(code_span(entry.path) for entry in named) + ")")
    return f"**agent {code_span(name)}**: no agent has this id"


def _handle_text(view: View, occurrence: Occurrence) -> str:
    node_id, _, handle = occurrence.name.partition(":")
    node = view.workflow.node(node_id)
    branch = next((b for b in node.branches if b.handle == handle), None) if node else None
    if branch is None or branch.when is None:
        return (f"**{code_span(occurrence.name)}**: {code_span(node_id)} has no branch whose "
                f"`when` is {code_span(handle)}")
    when = branch.when.value
    literal = json.dumps(when) if isinstance(when, str) else js_string(when)
    target = code_span(branch.target.id) if branch.target is not None else "no target"
    return (f"**branch {code_span(handle)} of {code_span(node_id)}** → {target}: taken when the "
            f"expression's result {code_span('=== ' + literal)}")


def _symbol_hover(view: View, offset: int, resolution: Resolution | None
                  ) -> tuple[str, tuple[int, int]] | None:
    occurrence = symbol_index(view.workflow).at(offset)
    if occurrence is None:
        return None
    if occurrence.kind is SymbolKind.NODE:
        text = _node_text(view, occurrence)
    elif occurrence.kind is SymbolKind.HANDLE:
        text = _handle_text(view, occurrence)
    else:
        text = _declaration_text(view, occurrence, resolution)
    return text, (occurrence.start, occurrence.end)


def _builtin_hover(view: View, offset: int) -> tuple[str, tuple[int, int]] | None:
    """Docs for a scope binding, sandbox global or member under the cursor in an expression."""
    found = expression_at(view.workflow, offset)
    if found is None:
        return None
    field, index = found
    source = field.value
    token = next((t for t in semantic_tokens(source) if t.span.start <= index <= t.span.end
                  and t.kind in _NAMED_TOKENS), None)
    if token is None:
        return None
    word = source[token.span.start:token.span.end]
    if not _WORD.fullmatch(word):
        return None
    text = _builtin_doc(source, token.span.start, word, token.kind, field.name)
    if text is None:
        return None
    return text, field.source_span(token.span.start, token.span.end)


def _builtin_doc(source: str, start: int, word: str, kind: TokenKind, field: str) -> str | None:
    owner = re.search(r"([A-Za-z_$][A-Za-z0-9_$]*)\s*\??\.\s*$", source[:start])
    if owner is not None:
        if owner.group(1) == "run" and word == "outputs":
            return f"**`run.outputs`** · {BINDING_DOCS['outputs']}"
        member = MEMBER_DOCS.get(owner.group(1), {}).get(word)
        if owner.group(1) == "Math" and word == "random":
            return f"**`Math.random`** · {FORBIDDEN_DOC}"
        return f"**`{owner.group(1)}.{word}`** · {member}" if member else None
    forbidden = any(use.span.start == start for use in analyze_expression(source).forbidden)
    if forbidden:
        return f"**`{word}`** · {FORBIDDEN_DOC}"
    if kind is TokenKind.SCOPE_BINDING:
        note = ""
        if word == "branches" and field != "merge_fn":
            note = (" It is null here (this is not a merge_fn): reading from it throws a "
                    "TypeError.")
        return f"**`{word}`** · {BINDING_DOCS[word]}{note}"
    if word in GLOBAL_DOCS:
        return f"**`{word}`** · {GLOBAL_DOCS[word]}"
    return None


def _rule_texts(ls: RelaviumLanguageServer, view: View, offset: int) -> list[str]:
    source = view.result.source
    where = source.position(offset)
    texts = []
    for diagnostic in view.result.diagnostics:
        if ls.settings.severity_for(diagnostic.rule, diagnostic.severity) is None:
            continue
        if not diagnostic.range.start <= where <= diagnostic.range.end:
            continue
        rule = RULES.get(diagnostic.rule)
        summary = rule.summary if rule is not None else "see the rule's documentation"
        text = f"**{diagnostic.rule}**: {summary} ([docs]({docs_url(diagnostic.rule)}))"
        if text not in texts:
            texts.append(text)
    return texts


def _dry_run_text(ls: RelaviumLanguageServer, uri: str, view: View, offset: int) -> str | None:
    """The last dry run's result for the node under the cursor, until the next edit."""
    state = ls.document(uri)
    run = state.current_dry_run if state is not None and view.current else None
    occurrence = symbol_index(view.workflow).at(offset) if run is not None else None
    if run is None or occurrence is None or occurrence.kind is not SymbolKind.NODE:
        return None
    note = next((each for each in run.annotations if each.node == occurrence.name), None)
    if note is None:
        return None
    if note.problem is not None:
        return f"**dry run** · {note.message.removeprefix('dry run: ')}"
    if note.tooltip is None:
        return None
    if note.tooltip.startswith("→"):  # a condition: what it chose
        return f"**dry run** · {note.tooltip}"
    return f"**dry run** · its output:\n\n```json\n{note.tooltip}\n```"


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded()
    async def hover(ls: RelaviumLanguageServer, params: types.HoverParams) -> types.Hover | None:
        view = (await view_of(ls, params.text_document.uri)
                or await agent_view_of(ls, params.text_document.uri))
        if view is None:
            return None
        offset = view.offset(params.position)
        if offset is None:
            return None
        root = view.result.document.root
        if view.result.kind is FileKind.AGENT:  # no workflow model: the agent schema's keys
            found = model_doc(root, offset) or key_doc(root, offset, AGENT_FILE)
        else:
            resolution = await ls.agent_resolution(params.text_document.uri, view.workflow)
            found = (_symbol_hover(view, offset, resolution) or _builtin_hover(view, offset)
                     or model_doc(root, offset) or key_doc(root, offset))
            typed = read_hover(view.workflow, typed_reads(view.workflow, view.result.graph,
                                                          view.result.file_agent), offset)
            if typed is not None:
                found = ((found[0] + "\n\n" + typed[0], found[1]) if found is not None
                         else typed)
        span = view.client_range(*found[1]) if found else None
        if span is None:
            found = None  # a name the user is editing: its analysis is of older text
        sections = [found[0]] if found else []
        if view.current:
            sections.extend(_rule_texts(ls, view, offset))
        dry_run = _dry_run_text(ls, params.text_document.uri, view, offset)
        if dry_run is not None:
            sections.append(dry_run)
        if not sections:
            return None
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(sections)
            ),
            range=span,
        )
