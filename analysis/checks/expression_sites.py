"""Shared by the expression rules: each expression field, its facts, and how to name it.

Not a rule (the leading underscore keeps the registry from loading it as one).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from analysis.diagnostics import Diagnostic, Fix, Severity
from analysis.document.expressions import ExpressionFacts, Span, analyze_expression
from analysis.document.model import ExpressionField, NodeDef, Workflow
from analysis.document.text_cache import text_cache
from sandbox.syntax import SyntaxProblem, check_syntax


class Reporter(Protocol):
    """What places a diagnostic at document offsets: the rule context (`RuleContext.diagnostic`),
    which builds on this module."""

    def diagnostic(
        self, rule: str, severity: Severity, start: int, end: int, message: str,
        data: dict[str, Any] | None = ..., related: Iterable[tuple[int, int, str]] = ...,
        fixes: tuple[Fix, ...] = ...,
    ) -> Diagnostic: ...


# Compared and hashed by value, never changed; not frozen, whose __init__ costs three times as
# much, and every analysis makes one per expression.
@dataclass(unsafe_hash=True, slots=True)
class ExpressionSite:
    field: ExpressionField
    facts: ExpressionFacts
    # The field's node, held here: the field's own link to it is weak, and every expression
    # rule asks for it on every site.
    node: NodeDef

    @property
    def label(self) -> str:
        return field_label(self.field)

    def diagnostic(
        self,
        ctx: Reporter,
        rule: str,
        severity: Severity,
        span: Span,
        message: str,
        data: dict[str, Any] | None = None,
        related: Iterable[tuple[int, int, str]] = (),
        fixes: tuple[Fix, ...] = (),
    ) -> Diagnostic:
        """A diagnostic on `span` of the decoded expression, placed in the document."""
        start, end = self.field.source_span(span.start, span.end)
        return ctx.diagnostic(rule, severity, start, end, message, data, related, fixes)


def field_label(field: ExpressionField) -> str:
    """`nodes[3].transform (node `route`)`: where the author finds the field."""
    where = f"`nodes[{field.node.index}].{field.name}`"
    return f"{where} (node `{field.node.id}`)" if field.node.id else where


# Longer expressions are not analysed (expression-too-large says so): tree-sitter's error
# recovery on a garbled one grows faster than its length (0.2 s at 32 KiB, 1.1 s at 64 KiB) and
# holds the interpreter meanwhile. No real expression comes near it.
MAX_EXPRESSION_CHARS = 32 * 1024


def evaluated_fields(workflow: Workflow) -> list[tuple[NodeDef, ExpressionField]]:
    """Every expression field the engine evaluates (and scans), with its node. A `merge_fn`
    beside a strategy other than `custom` is ignored by the engine; unused-merge-fn reports it
    instead."""
    return [(node, field) for node in workflow.nodes
            if (field := node.expression) is not None
            and (node.type != "merge" or node.merge_strategy == "custom")]


def collect_sites(evaluated: list[tuple[NodeDef, ExpressionField]]) -> list[ExpressionSite]:
    """The sites of the evaluated fields within the size limit, with their facts."""
    fields = [(node, field) for node, field in evaluated
              if len(field.value) <= MAX_EXPRESSION_CHARS]
    facts = analyze_expression.map([field.value for _, field in fields])
    return [ExpressionSite(field, fact, node)
            for (node, field), fact in zip(fields, facts, strict=True)]


@text_cache(max_bytes=8 * 2**20)
def syntax_problem(source: str) -> SyntaxProblem | None:
    """The engine's parse-only verdict (cached: unchanged expressions are re-checked on every
    keystroke elsewhere in the file)."""
    return check_syntax(source)


def output_access(node_id: str) -> str:
    """How a message quotes a read: `run.outputs["classify"]`."""
    return f"run.outputs[{json.dumps(node_id, ensure_ascii=False)}]"
