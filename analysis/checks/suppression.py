"""Inline suppression: `# relavium-lsp: ignore[rule-id, other-id]`.

Contract: a suppression comment silences the named rule ids (or every rule with `ignore[*]`)
- for diagnostics starting on the comment's own line, and
- for every diagnostic inside a node, an edge, an input, a context entry or an agent when the
  comment sits on the first line of that list item or on its own line(s) directly above it.
A `#` inside a scalar (block scalars included) is text, never a suppression.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from analysis.diagnostics import Diagnostic
from analysis.document.yaml_nodes import YMapping

if TYPE_CHECKING:
    from analysis.checks.context import RuleContext

_COMMENT = re.compile(r"(?:^|(?<=\s))#\s*relavium-lsp:\s*ignore\[([^\]]*)\]", re.MULTILINE)


def _comments(context: RuleContext) -> dict[int, set[str]]:
    """Line → rule ids, for suppression comments outside any scalar."""
    text = context.source.text
    if "relavium-lsp" not in text:
        return {}
    spans = context.document.scalar_spans
    starts = [start for start, _ in spans]
    result: dict[int, set[str]] = {}
    for match in _COMMENT.finditer(text):
        at = bisect.bisect_right(starts, match.start()) - 1
        if at >= 0 and spans[at][0] <= match.start() < spans[at][1]:
            continue
        ids = {part.strip() for part in match.group(1).split(",") if part.strip()}
        result.setdefault(context.source.position(match.start()).line, set()).update(ids)
    return result


def _items(context: RuleContext) -> Iterable[YMapping]:
    workflow = context.workflow
    for group in (workflow.nodes, workflow.edges, workflow.inputs, workflow.context,
                  workflow.agents):
        for item in group:
            yield item.mapping


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
