"""Renaming a node id, or an inline agent's id, everywhere the workflow writes it, or a clear
refusal (an agent file's agent, named across files: `analysis.ide.agent_places`).

Contract:
- `rename_target(index, offset)` → the node-id or agent-id occurrence under the cursor that can
  be renamed, or raises `RenameRefused` saying why not (neither, or nothing in the workflow
  declares it: an `agent_ref` to another file's agent is the caller's to resolve first).
- `plan_rename(index, occurrence, new_id, taken_elsewhere)` → replacements `(start, end, text)`
  in document offsets, one per place (`symbol_index` lists them), or raises `RenameRefused` with a
  message naming the problem: a new id that is not kebab-case (the engine's `kebabIdSchema` for
  node and agent ids alike, packages/shared/src/common.ts 839f2bd), one another node (agent)
  already has — for an agent also one of `taken_elsewhere`, the agent files the workflow
  resolves, whose `agent_ref`s the inline agent would then capture — or a place whose source
  cannot be mapped exactly.
- The result stays valid YAML and means the same: a plain scalar whose new value would resolve to a
  number/boolean/null is quoted; `run.outputs.old` in an expression becomes
  `run.outputs["new-id"]` when the new id is not a JavaScript identifier (quotes chosen to fit the
  YAML scalar's style). A template's `{{ run.outputs.old }}` is not rewritten to the bracket form,
  because that form adds a data edge: the rename is refused instead.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import cached_property

from analysis.document.edits import Replacement
from analysis.document.expressions import ReadForm
from analysis.document.expressions.js_text import JS_WHITESPACE
from analysis.document.scalar_offsets import ScalarText
from analysis.document.yaml_nodes import YMapping, YNode, YScalar, YSequence
from analysis.document.yaml_profile import resolve_plain
from analysis.ide.navigation import Occurrence, Role, SymbolIndex, SymbolKind
from analysis.schema.common import KEBAB, kebab_suggestion

_JS_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


class RenameRefused(ValueError):
    """Why a rename cannot be done, worded for the user."""


RENAMEABLE = (SymbolKind.NODE, SymbolKind.AGENT)


def rename_target(index: SymbolIndex, offset: int) -> Occurrence:
    occurrence = index.at(offset)
    if occurrence is None or occurrence.kind not in RENAMEABLE:
        raise RenameRefused("only node and agent ids can be renamed: put the cursor on a node "
                            "id, an agent id or an agent_ref")
    if index.definition(occurrence.kind, occurrence.name) is None:
        raise RenameRefused(
            f"no {occurrence.kind} has the id '{occurrence.name}', so there is nothing to "
            "rename; fix the reference instead"
        )
    return occurrence


def check_new_id(kind: SymbolKind, new_id: str) -> None:
    """Refuse an id the engine would refuse (`kebabIdSchema`)."""
    if not KEBAB.match(new_id):
        suggestion = kebab_suggestion(new_id)
        hint = f", e.g. '{suggestion}'" if suggestion and suggestion != new_id else ""
        raise RenameRefused(
            f"'{new_id}' is not a valid {kind} id: use kebab-case (lowercase letters and digits "
            f"joined by single hyphens){hint}"
        )


def plan_rename(index: SymbolIndex, occurrence: Occurrence, new_id: str,
                taken_elsewhere: Collection[str] = ()) -> list[Replacement]:
    old_id = occurrence.name
    kind = occurrence.kind
    check_new_id(kind, new_id)
    if new_id == old_id:
        return []
    taken = index.definition(kind, new_id)
    if taken is not None:
        line = index.workflow.source.position(taken.start).line + 1
        raise RenameRefused(
            f"a {kind} with id '{new_id}' already exists (line {line}); pick another id"
        )
    if new_id in taken_elsewhere:
        raise RenameRefused(
            f"an agent file this workflow resolves already defines '{new_id}', whose "
            "agent_refs the inline agent would take over; pick another id"
        )
    places = index.references(kind, old_id)
    in_flow = _FlowScalars(index)
    replacements = [_replacement(index, place, new_id, in_flow) for place in places]
    return sorted(replacements)


class _FlowScalars:
    """Whether a `{ … }` or `[ … ]` collection holds a scalar: one walk of the document, on the
    first question (walking down to each renamed place again made a rename of n references
    in a list of n nodes quadratic)."""

    def __init__(self, index: SymbolIndex) -> None:
        self.index = index

    @cached_property
    def _held(self) -> set[int]:
        source = self.index.workflow.source.text
        held: set[int] = set()
        root = self.index.workflow.root
        stack: list[tuple[YNode, bool]] = [] if root is None else [(root, False)]
        while stack:
            node, in_flow = stack.pop()
            if isinstance(node, YScalar):
                if in_flow:
                    held.add(id(node))
                continue
            flow = in_flow or source[node.start:node.start + 1] in ("{", "[")
            if isinstance(node, YMapping):
                stack.extend((entry.value, flow) for entry in node.entries)
            elif isinstance(node, YSequence):
                stack.extend((item, flow) for item in node.items)
        return held

    def __contains__(self, scalar: YScalar) -> bool:
        return id(scalar) in self._held


def _line(index: SymbolIndex, place: Occurrence) -> int:
    return index.workflow.source.position(place.start).line + 1


def _replacement(
    index: SymbolIndex, place: Occurrence, new_id: str, in_flow: _FlowScalars
) -> Replacement:
    if not place.exact:
        raise RenameRefused(
            f"the reference to '{place.name}' on line {_line(index, place)} is written in a way "
            "the server cannot map exactly; rename that one by hand first"
        )
    if place.form is ReadForm.DOT and not _JS_IDENTIFIER.match(new_id):
        if place.role is Role.TEMPLATE:
            raise RenameRefused(
                f"line {_line(index, place)} reads run.outputs.{place.name} in a template, and "
                f"'{new_id}' needs the bracket form, which would add a data edge; write "
                f"run.outputs[\"{place.name}\"] there first, or pick an id without hyphens"
            )
        return _bracketed(index, place, new_id, in_flow)
    return renamed_in(place.text, place.decoded, new_id)


def renamed_in(text: ScalarText, decoded: tuple[int, int], new: str) -> Replacement:
    """The replacement writing `new` over decoded characters `[start, end)` of an exactly
    mapped scalar, keeping what it reads as a string."""
    scalar = text.scalar
    value = text.value
    start, end = decoded
    new_value = value[:start] + new + value[end:]
    if scalar.style is None and not isinstance(resolve_plain(new_value), str):
        # `id: 42` would be a number: quote the whole scalar
        return (scalar.content_start, scalar.end, f"'{new_value}'")
    return (*text.source_span(start, end), new)


def _bracketed(
    index: SymbolIndex, place: Occurrence, new_id: str, in_flow: _FlowScalars
) -> Replacement:
    """`run.outputs.old` → `run.outputs["new-id"]` (an optional chain keeps its `?.`)."""
    text = place.text
    value = text.value
    key_start, key_end = place.decoded
    dot = key_start - 1
    while dot >= 0 and value[dot] in JS_WHITESPACE:
        dot -= 1
    replace_from = dot + 1 if dot > 0 and value[dot - 1] == "?" else dot
    scalar = text.scalar
    if scalar.style is None and scalar in in_flow:
        raise RenameRefused(
            f"line {_line(index, place)} reads run.outputs.{place.name} in a plain scalar inside "
            f"{{ … }} or [ … ], where the bracket form '{new_id}' needs is not valid YAML; quote "
            "that expression first"
        )
    quote = "'" if scalar.style == '"' else '"'
    start, end = text.source_span(replace_from, key_end)
    return (start, end, f"[{quote}{new_id}{quote}]")
