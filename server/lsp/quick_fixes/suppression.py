"""Suppression comments for any rule: `# relavium-lsp: ignore[rule-id]` on the diagnostic's line,
or on its own line above the node (or edge, input, …) that holds it — the only choice when the
line ends inside a scalar, where a `#` would be text."""

from __future__ import annotations

import bisect
import re

from lsprotocol import types

from analysis.diagnostics import Position
from analysis.document.yaml_nodes import YMapping
from server.lsp.quick_fixes import FixContext

RULES = ("*",)
UNSUPPRESSIBLE = frozenset({"yaml-syntax", "internal-error"})
_EXISTING = re.compile(r"#\s*relavium-lsp:\s*ignore\[([^\]]*)\]")


def fixes(context: FixContext) -> list[types.CodeAction]:
    rule = context.diagnostic.rule
    if rule in UNSUPPRESSIBLE:
        return []
    actions = []
    line_fix = _on_line(context, rule)
    if line_fix is not None:
        actions.append(context.action(f"Ignore {rule} on this line", [line_fix]))
    item = _enclosing_item(context)
    if item is not None:
        label, mapping = item
        actions.append(
            context.action(f"Ignore {rule} for {label}", [_above(context.text, mapping, rule)])
        )
    return actions


def _inside_scalar(context: FixContext, offset: int) -> bool:
    spans = context.result.document.scalar_spans
    at = bisect.bisect_right(spans, (offset, float("inf"))) - 1
    return at >= 0 and spans[at][0] <= offset < spans[at][1]


def _on_line(context: FixContext, rule: str) -> tuple[int, int, str] | None:
    lines = context.snapshot.lines
    line = context.diagnostic.range.start.line
    line_start = lines.offset(Position(line, 0))
    content = lines.line_text(line)
    line_end = line_start + len(content)
    if _inside_scalar(context, max(line_end - 1, line_start)):
        return None
    existing = _EXISTING.search(content)
    if existing is not None and not _inside_scalar(context, line_start + existing.start()):
        close = line_start + existing.end() - 1
        return (close, close, f", {rule}")
    return (line_end, line_end, f"  # relavium-lsp: ignore[{rule}]")


def _enclosing_item(context: FixContext) -> tuple[str, YMapping] | None:
    workflow = context.workflow
    groups = (
        ("node", workflow.nodes), ("edge", workflow.edges), ("input", workflow.inputs),
        ("context entry", workflow.context), ("agent", workflow.agents),
    )
    for kind, items in groups:
        for item in items:
            mapping = item.mapping
            if mapping.start <= context.start < max(mapping.end, mapping.start + 1):
                name = getattr(item, "id", None) or getattr(item, "name", None) or getattr(
                    item, "key", None
                )
                return (f"{kind} {name}" if name else f"this {kind}"), mapping
    return None


def _above(text: str, mapping: YMapping, rule: str) -> tuple[int, int, str]:
    line_start = text.rfind("\n", 0, mapping.start) + 1
    prefix = text[line_start:mapping.start]
    indent = prefix[: len(prefix) - len(prefix.lstrip(" "))]
    newline = "\r\n" if "\r\n" in text else "\n"
    return (line_start, line_start, f"{indent}# relavium-lsp: ignore[{rule}]{newline}")
