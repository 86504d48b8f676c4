"""Hover on a read: the type of the value a literal read path reaches and where that type comes
from (`severity: "low" | "high"` — classify's output_schema), in expressions and in `{{ }}`
templates. Only types are shown, never a value (a secret's type is `string`, nothing more).

Contract: `read_hover(workflow, reads, offset)` → (Markdown, document span of the segment under
the cursor) or None: off a read, on a binding alone (`inputs`, `run.outputs`: their docs are
elsewhere), on a read the scope does not hold as written (a string, a comment, a shadowed
binding, `branches` outside a merge_fn), on a node's read of a secret input or a secret-derived
context key (it fails), or where the type is unknown (`AnyValue` says
nothing, as everywhere).
"""

from __future__ import annotations

from analysis.document.expressions import TokenKind, semantic_tokens
from analysis.document.expressions.js_text import LiteralRegions
from analysis.document.model import Workflow
from analysis.document.scalar_offsets import ScalarText
from analysis.ide.describe import code_span
from analysis.ide.navigation import expression_at, template_at, template_reader
from analysis.ide.read_path import Dialect, ReadAt, read_at
from analysis.ide.typed_reads import TypedReads
from analysis.types.display import format_type, is_unknown, property_name

_HOVER_WIDTH = 100


def read_hover(workflow: Workflow, reads: TypedReads, offset: int
               ) -> tuple[str, tuple[int, int]] | None:
    located = _expression_read(workflow, offset) or _template_read(workflow, offset)
    if located is None:
        return None
    field, reader, found, shift = located
    if reads.denied(found.read.root, found.read.path):
        return None  # the read fails: the declaration's hover says why
    typed = reads.read_type(reader, found.read.root, found.read.path)
    if is_unknown(typed.type):
        return None
    name = _name(found)
    text = f"{code_span(name + ': ' + format_type(typed.type, width=_HOVER_WIDTH))}"
    if typed.origin:
        text += f" — {typed.origin}"
    start, end = found.segment
    return text, field.source_span(start + shift, end + shift)


def _name(found: ReadAt) -> str:
    """The read's last step as TypeScript names it: `severity`, `"ticket-id"`, `labels[0]`."""
    path = found.read.path
    last = path[-1]
    if isinstance(last, str):
        return property_name(last)
    before = path[-2] if len(path) > 1 else found.read.root
    owner = property_name(before) if isinstance(before, str) else f"[{before}]"
    return f"{owner}[{last}]"


def _expression_read(workflow: Workflow, offset: int
                     ) -> tuple[ScalarText, str, ReadAt, int] | None:
    located = expression_at(workflow, offset)
    reader = located[0].node.id if located is not None else None
    if located is None or reader is None:
        return None
    field, index = located
    source = field.value
    found = read_at(source, index, Dialect.EXPRESSION)
    if found is None or LiteralRegions(source).contain(found.read.start):
        return None
    if found.read.root == "branches" and field.name != "merge_fn":
        return None
    binding = any(token.span.start == found.read.start and token.kind is TokenKind.SCOPE_BINDING
                  for token in semantic_tokens(source))
    return (field, reader, found, 0) if binding else None


def _template_read(workflow: Workflow, offset: int
                   ) -> tuple[ScalarText, str, ReadAt, int] | None:
    located = template_at(workflow, offset)
    if located is None:
        return None
    field, index = located
    reader = template_reader(field)
    if reader is None:
        return None
    for ref in field.references:
        body_start = ref.start + 2
        if body_start <= index <= ref.end - 2:
            found = read_at(ref.body, index - body_start, Dialect.TEMPLATE)
            return (field, reader, found, body_start) if found is not None else None
    return None
