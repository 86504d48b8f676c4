"""expression-too-large: an expression longer than the analysis limit (32 KiB of text).

Checking a very long expression costs more than it is worth (a garbled 1 MB one took a minute),
so none of the expression checks run on it; this says so instead of staying silent.
"""

from collections.abc import Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.rules import RuleContext
from analysis.rules._expression_sites import (
    MAX_EXPRESSION_CHARS,
    evaluated_fields,
    field_label,
)

RULE_ID = "expression-too-large"
SEVERITY = Severity.WARNING
SUMMARY = "An expression longer than 32 KiB is not checked."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for field in evaluated_fields(ctx):
        if len(field.value) > MAX_EXPRESSION_CHARS:
            start, end = field.scalar.span
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, start, end,
                f"{field_label(field)} is {len(field.value):,} characters long; expressions over "
                f"{MAX_EXPRESSION_CHARS:,} are not checked (syntax, output reads, globals). "
                "Move data into inputs or context, or split the work across nodes.",
                data={"node": field.node.id, "field": field.name},
            )
