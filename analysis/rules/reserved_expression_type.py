"""reserved-expression-type: `expression_type: jmespath` or `jsonlogic` (reserved, refused)."""

from collections.abc import Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.rules import RuleContext
from analysis.yaml_tree import YScalar

RULE_ID = "reserved-expression-type"
SEVERITY = Severity.ERROR
SUMMARY = "expression_type jmespath/jsonlogic is reserved and refused; only js exists in v1.0."

RESERVED = ("jmespath", "jsonlogic")


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for node in ctx.workflow.nodes:
        entry = node.entry("expression_type")
        if node.type not in ("condition", "transform") or entry is None:
            continue
        value = entry.value
        if isinstance(value, YScalar) and value.value in RESERVED:
            field = "expression" if node.type == "condition" else "transform"
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, value.start, value.end,
                f"node '{node.id}': expression_type '{value.value}' is reserved and not "
                f"supported; write '{field}' in JavaScript and set expression_type: js "
                "(or drop the key)",
                {"replacement": "js"},
            )
