"""Shared by the expression rules: each expression field, its facts, and how to name it.

Not a rule (the leading underscore keeps the registry from loading it as one).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

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

    def span(self, span: Span) -> tuple[int, int]:
        """Document offsets of a span of the decoded expression."""
        return self.field.source_span(span.start, span.end)


def expression_sites(ctx: RuleContext) -> Iterator[ExpressionSite]:
    for field in ctx.workflow.expression_fields():
        yield ExpressionSite(field, analyze_expression(field.value))


@lru_cache(maxsize=4096)
def syntax_problem(source: str) -> SyntaxProblem | None:
    """The engine's parse-only verdict (cached: unchanged expressions are re-checked on every
    keystroke elsewhere in the file)."""
    return check_syntax(source)


def output_access(node_id: str) -> str:
    """How a message quotes a read: `run.outputs["classify"]`."""
    return f"run.outputs[{json.dumps(node_id, ensure_ascii=False)}]"
