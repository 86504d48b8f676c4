"""expression-too-large: an expression longer than the analysis limit (32 KiB of text).

Checking a very long expression costs more than it is worth (a garbled 1 MB one took a minute),
so none of the expression checks run on it; this says so instead of staying silent. Past the
engine's own limit it is an error: the engine's sandbox refuses such an expression (`syntax`)
before compiling it, every time the node runs (`MAX_EXPRESSION_CHARS` in
packages/core/src/expression/sandbox.ts).
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.expression_sites import MAX_EXPRESSION_CHARS, field_label
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.source import utf16_length

RULE_ID = "expression-too-large"
SEVERITY = Severity.WARNING
SUMMARY = (
    "An expression longer than 32 KiB is not checked; past 100,000 characters the engine "
    "refuses it."
)
# The engine's limit counts JavaScript string length: UTF-16 code units.
ENGINE_MAX_EXPRESSION_UNITS = 100_000


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for node, field in ctx.evaluated_fields:
        if len(field.value) <= MAX_EXPRESSION_CHARS:
            continue
        start, end = field.scalar.span
        units = utf16_length(field.value)
        if units > ENGINE_MAX_EXPRESSION_UNITS:
            severity, verdict = Severity.ERROR, (
                f"the engine refuses expressions over {ENGINE_MAX_EXPRESSION_UNITS:,} "
                "(sandbox_error `syntax` every time the node runs)")
        else:
            severity, verdict = SEVERITY, (
                f"expressions over {MAX_EXPRESSION_CHARS:,} are not checked (syntax, output "
                "reads, globals)")
        yield ctx.diagnostic(
            RULE_ID, severity, start, end,
            f"{field_label(field)} is {units:,} characters long; {verdict}. "
            "Move data into inputs or context, or split the work across nodes.",
            data={"node": node.id, "field": field.name},
        )
