"""unknown-expression-type: an `expression_type` other than `js` (and not a reserved name)."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.rules.expressions.reserved_expression_type import (
    RESERVED,
    expression_types,
    use_js,
)
from analysis.diagnostics import Diagnostic, Severity

# JavaScript by another name: the expression is JavaScript as the author meant, and `js` is the
# one value the engine loads (node.ts ExpressionTypeSchema, z.enum(['js'])), so writing it is
# the only answer — a safe fix.
JAVASCRIPT_NAMES = frozenset({"js", "javascript", "ecmascript"})

RULE_ID = "unknown-expression-type"
SEVERITY = Severity.ERROR
SUMMARY = "expression_type must be js (the only expression language)."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for node, scalar, value in ctx.shared(expression_types):
        if value != "js" and value not in RESERVED:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, scalar.start, scalar.end,
                f"node '{node.id}': expression_type '{value}' is unknown; the only "
                "expression type is js: write expression_type: js or drop the key",
                {"replacement": "js"},
                fixes=use_js(ctx, node, scalar, safe=value.casefold() in JAVASCRIPT_NAMES),
            )
