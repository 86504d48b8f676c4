"""`reserved-expression-type` / `unknown-expression-type`: write `js`, or drop the key (js is
the only type and the default)."""

from __future__ import annotations

from lsprotocol import types

from analysis.document.yaml_nodes import YEntry
from server.lsp.quick_fixes import FixContext

RULES = ("reserved-expression-type", "unknown-expression-type")


def fixes(context: FixContext) -> list[types.CodeAction]:
    entry = _expression_type_entry(context)
    if entry is None:
        return []
    actions = [
        context.action(
            "Use `expression_type: js`", [(entry.value.start, entry.value.end, "js")],
            preferred=True,
        )
    ]
    removal = _removal(context.text, entry)
    if removal is not None:
        actions.append(context.action("Remove `expression_type` (js is the default)", [removal]))
    return actions


def _expression_type_entry(context: FixContext) -> YEntry | None:
    for node in context.workflow.nodes:
        entry = node.entry("expression_type")
        if entry is not None and entry.key.start <= context.start <= entry.value.end:
            return entry
    return None


def _removal(text: str, entry: YEntry) -> tuple[int, int, str] | None:
    """The span deleting the entry: its whole line in a block mapping, the entry and one comma
    in a flow mapping; None when the line holds more than the entry (keep it simple and safe)."""
    line_start = text.rfind("\n", 0, entry.key.start) + 1
    line_end = text.find("\n", entry.value.end)
    line_end = len(text) if line_end == -1 else line_end + 1
    before = text[line_start:entry.key.start]
    after = text[entry.value.end:line_end]
    if before.strip() == "" and after.strip() == "":
        return (line_start, line_end, "")
    following = len(after) - len(after.lstrip(" "))
    if after.lstrip(" ").startswith(","):
        end = entry.value.end + following + 1
        while end < len(text) and text[end] == " ":
            end += 1
        return (entry.key.start, end, "")
    preceding = before.rstrip(" ")
    if preceding.endswith(","):
        return (line_start + len(preceding) - 1, entry.value.end, "")
    return None
