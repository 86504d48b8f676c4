"""Inline suppression: `# relavium-lsp: ignore[rule-id, other-id]`.

Contract: a suppression comment silences the named rule ids (or every rule with `ignore[*]`)
- for diagnostics starting on the comment's own line, and
- for every diagnostic inside a node, an edge, an input, a context entry or an agent when the
  comment sits on the first line of that list item or on its own line(s) directly above it.
A `#` inside a scalar (block scalars included) is text, never a suppression.

`suppression_fixes` writes such a comment for a diagnostic (the editor's "Ignore …" quick fixes):
every diagnostic gets them, so no rule builds them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from analysis.diagnostics import Diagnostic, Fix, Position
from analysis.document.edits import Replacement, fix, indentation_at, newline_of
from analysis.document.model import Workflow
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YamlDocument, YMapping

if TYPE_CHECKING:
    from analysis.checks.context import RuleContext

_COMMENT = re.compile(r"(?:^|(?<=\s))#\s*relavium-lsp:\s*ignore\[([^\]]*)\]", re.MULTILINE)
# A comment on a line to add an id to (found anywhere in the line, as an author may write it).
_EXISTING = re.compile(r"#\s*relavium-lsp:\s*ignore\[([^\]]*)\]")
# Offered no "Ignore …": a document that does not read is to be fixed, and an internal error is
# a bug to report, not to hide.
UNSUPPRESSIBLE = frozenset({"yaml-syntax", "internal-error"})


def _inside_scalar(spans: list[tuple[int, int]], offset: int) -> bool:
    at = bisect.bisect_right(spans, (offset, float("inf"))) - 1
    return at >= 0 and spans[at][0] <= offset < spans[at][1]


def _comments(context: RuleContext) -> dict[int, set[str]]:
    """Line → rule ids, for suppression comments outside any scalar."""
    text = context.source.text
    if "relavium-lsp" not in text:
        return {}
    spans = context.document.scalar_spans
    result: dict[int, set[str]] = {}
    for match in _COMMENT.finditer(text):
        if _inside_scalar(spans, match.start()):
            continue
        ids = {part.strip() for part in match.group(1).split(",") if part.strip()}
        result.setdefault(context.source.position(match.start()).line, set()).update(ids)
    return result


def _items(context: RuleContext) -> Iterable[YMapping]:
    for _, item in _groups(context.workflow):
        yield item.mapping


def _groups(workflow: Workflow) -> Iterable[tuple[str, Any]]:
    """(kind, item) for every list item a comment above it covers, in document order of lists."""
    for kind, items in (
        ("node", workflow.nodes), ("edge", workflow.edges), ("input", workflow.inputs),
        ("context entry", workflow.context), ("agent", workflow.agents),
    ):
        for item in items:
            yield kind, item


def _last_content(text: str, mapping: YMapping) -> int:
    """Offset of the item's last non-blank character (block mappings end at the next token)."""
    end = mapping.end
    while end > mapping.start + 1 and text[end - 1] in " \t\r\n":
        end -= 1
    return end - 1


def _is_comment_line(context: RuleContext, line: int) -> bool:
    return context.source.line_text(line).lstrip().startswith("#")


def apply_suppressions(
    context: RuleContext, diagnostics: list[Diagnostic]
) -> tuple[list[Diagnostic], list[Diagnostic]]:
    by_line = _comments(context)
    if not by_line:
        return diagnostics, []
    # line → the ids of the list items that cover it (each line once per item: items of a list
    # follow one another, so this is linear; matching each finding against every item was not)
    covered: dict[int, set[str]] = {}
    above: dict[int, set[str]] = {}  # first line → ids of the comment lines right above it
    spans: set[tuple[int, int]] = set()
    source = context.source
    for mapping in _items(context):
        if (mapping.start, mapping.end) in spans:
            continue  # the same item again (an alias)
        spans.add((mapping.start, mapping.end))
        first = source.position(mapping.start).line
        last = source.position(_last_content(source.text, mapping)).line
        if first not in above:
            above[first] = _ids_above(context, by_line, first)
        ids = by_line.get(first, set()) | above[first]
        if ids:
            for line in range(first, last + 1):
                covered.setdefault(line, set()).update(ids)
    kept: list[Diagnostic] = []
    dropped: list[Diagnostic] = []
    for diagnostic in diagnostics:
        line = diagnostic.range.start.line
        ids = by_line.get(line, set()) | covered.get(line, set())
        (dropped if diagnostic.rule in ids or "*" in ids else kept).append(diagnostic)
    return kept, dropped


def _ids_above(context: RuleContext, by_line: dict[int, set[str]], first: int) -> set[str]:
    """The ids of the comment lines directly above line `first`."""
    ids: set[str] = set()
    line = first - 1
    while line >= 0 and _is_comment_line(context, line):
        ids |= by_line.get(line, set())
        line -= 1
    return ids


def suppression_fixes(
    diagnostic: Diagnostic, source: SourceText, document: YamlDocument, workflow: Workflow
) -> list[Fix]:
    """"Ignore …" for `diagnostic` of the analysis of `source`: a comment on its line (unless the
    line ends inside a scalar, where a `#` would be text), and one on its own line above the
    list item holding it. Safe: a comment changes nothing the engine reads."""
    rule = diagnostic.rule
    if rule in UNSUPPRESSIBLE:
        return []
    fixes = []
    on_line = _on_line(diagnostic, source, document.scalar_spans)
    if on_line is not None:
        fixes.append(fix(source, f"Ignore {rule} on this line", [on_line], safe=True))
    item = _enclosing_item(workflow, source.offset(diagnostic.range.start))
    if item is not None:
        label, mapping = item
        fixes.append(fix(source, f"Ignore {rule} for {label}", [_above(source.text, mapping, rule)],
                         safe=True))
    return fixes


def _on_line(diagnostic: Diagnostic, source: SourceText, spans: list[tuple[int, int]]
             ) -> Replacement | None:
    rule = diagnostic.rule
    line = diagnostic.range.start.line
    line_start = source.offset(Position(line, 0))
    content = source.line_text(line)
    line_end = line_start + len(content)
    if _inside_scalar(spans, max(line_end - 1, line_start)):
        return None
    existing = _EXISTING.search(content)
    if existing is not None and not _inside_scalar(spans, line_start + existing.start()):
        close = line_start + existing.end() - 1
        return (close, close, f", {rule}")
    return (line_end, line_end, f"  # relavium-lsp: ignore[{rule}]")


def _enclosing_item(workflow: Workflow, offset: int) -> tuple[str, YMapping] | None:
    for kind, item in _groups(workflow):
        mapping = item.mapping
        if mapping.start <= offset < max(mapping.end, mapping.start + 1):
            name = getattr(item, "id", None) or getattr(item, "name", None) or getattr(
                item, "key", None
            )
            return (f"{kind} {name}" if name else f"this {kind}"), mapping
    return None


def _above(text: str, mapping: YMapping, rule: str) -> Replacement:
    line_start, indent = indentation_at(text, mapping.start)
    return (line_start, line_start, f"{indent}# relavium-lsp: ignore[{rule}]{newline_of(text)}")
