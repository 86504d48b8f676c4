"""missing-field: a required field is absent (schema_version, workflow.id, a node's type, …)."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.schema.walk import MISSING_FIELD

RULE_ID = MISSING_FIELD
SEVERITY = Severity.ERROR
SUMMARY = "A required field is missing."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    return (problem for problem in ctx.schema_problems if problem.rule == RULE_ID)
