"""Shared by the expression rules: each expression field, its facts, and how to name it.

Not a rule (the leading underscore keeps the registry from loading it as one).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from analysis.diagnostics import Diagnostic, Severity
from analysis.expressions import ExpressionFacts, Span, analyze_expression
from analysis.model import ExpressionField, NodeDef
from analysis.rules import RuleContext
from sandbox.syntax import SyntaxProblem, check_syntax


@dataclass(frozen=True)
class ExpressionSite:
    field: ExpressionField
    facts: ExpressionFacts

    @property
    def node(self) -> NodeDef:
        return self.field.node

    @property
    def label(self) -> str:
        """`nodes[3].transform (node `route`)`: where the author finds the field."""
        where = f"`nodes[{self.node.index}].{self.field.name}`"
        return f"{where} (node `{self.node.id}`)" if self.node.id else where

    def diagnostic(
        self,
        ctx: RuleContext,
        rule: str,
        severity: Severity,
        span: Span,
        message: str,
        data: dict[str, Any] | None = None,
        related: Iterable[tuple[int, int, str]] = (),
    ) -> Diagnostic:
        """A diagnostic on `span` of the decoded expression, placed in the document."""
        start, end = self.field.source_span(span.start, span.end)
        return ctx.diagnostic(rule, severity, start, end, message, data, related)


def expression_sites(ctx: RuleContext) -> Iterator[ExpressionSite]:
    """Every expression the engine evaluates (and scans). A `merge_fn` beside a strategy other
    than `custom` is ignored by the engine; unused-merge-fn reports it instead."""
    for field in ctx.workflow.expression_fields():
        if field.node.type == "merge" and field.node.merge_strategy != "custom":
            continue
        yield ExpressionSite(field, analyze_expression(field.value))


@lru_cache(maxsize=4096)
def syntax_problem(source: str) -> SyntaxProblem | None:
    """The engine's parse-only verdict (cached: unchanged expressions are re-checked on every
    keystroke elsewhere in the file)."""
    return check_syntax(source)


def output_access(node_id: str) -> str:
    """How a message quotes a read: `run.outputs["classify"]`."""
    return f"run.outputs[{json.dumps(node_id, ensure_ascii=False)}]"
