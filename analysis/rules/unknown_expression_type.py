"""unknown-expression-type: an `expression_type` other than `js` (and not a reserved name)."""

from collections.abc import Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.rules import RuleContext
from analysis.rules.reserved_expression_type import RESERVED
from analysis.yaml_tree import YScalar

RULE_ID = "unknown-expression-type"
SEVERITY = Severity.ERROR
SUMMARY = "expression_type must be js (the only expression language)."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for node in ctx.workflow.nodes:
        entry = node.entry("expression_type")
        if node.type not in ("condition", "transform") or entry is None:
            continue
        value = entry.value
        if (isinstance(value, YScalar) and isinstance(value.value, str)
                and value.value != "js" and value.value not in RESERVED):
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, value.start, value.end,
                f"node '{node.id}': expression_type '{value.value}' is unknown; the only "
                "expression type is js: write expression_type: js or drop the key",
                {"replacement": "js"},
            )
