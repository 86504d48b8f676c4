"""Build small workflows around one expression and read back one rule's diagnostics."""

from __future__ import annotations

from analysis.checks.analyze import analyze
from analysis.diagnostics import Diagnostic

STYLES = ("plain", "single-quoted", "double-quoted", "literal", "folded")


def scalar(expression: str, style: str, indent: str = "        ") -> str:
    """`expression` written as a YAML scalar value in `style` (after `key:`)."""
    if style == "plain":
        return f" {expression}"
    if style == "single-quoted":
        return " '" + expression.replace("'", "''") + "'"
    if style == "double-quoted":
        escaped = expression.replace("\\", "\\\\").replace('"', '\\"')
        return ' "' + escaped.replace("ü", "\\u00fc") + '"'  # an escape before the target
    if style == "literal":
        return f" |\n{indent}{expression}\n"
    if style == "folded":  # two source lines folded into one line of JavaScript
        head, tail = expression.split(" + ", 1)
        return f" >\n{indent}{head} +\n{indent}{tail}\n"
    raise ValueError(style)


def workflow(nodes: str, edges: str = "[]", inputs: str = "[]", context: str = "[]") -> str:
    return (
        "schema_version: '1.0'\n"
        "workflow:\n"
        "  id: demo\n"
        f"  inputs: {inputs}\n"
        f"  context: {context}\n"
        "  nodes:\n"
        f"{nodes}"
        f"  edges: {edges}\n"
    )


def transform(node_id: str, expression: str, style: str = "double-quoted") -> str:
    return (
        f"    - id: {node_id}\n      type: transform\n      transform:{scalar(expression, style)}\n"
    )


def diagnostics(text: str, rule: str) -> list[Diagnostic]:
    return [d for d in analyze(text).diagnostics if d.rule == rule]


def range_text(text: str, diagnostic: Diagnostic) -> str:
    """The document text a diagnostic's range covers (one line)."""
    start, end = diagnostic.range.start, diagnostic.range.end
    assert start.line == end.line, diagnostic
    return text.splitlines()[start.line][start.character : end.character]
