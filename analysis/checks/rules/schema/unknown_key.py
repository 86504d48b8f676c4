"""unknown-key: a key the engine's strict schema does not allow at that place."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.schema.walk import UNKNOWN_KEY

RULE_ID = UNKNOWN_KEY
SEVERITY = Severity.ERROR
SUMMARY = "A key the workflow schema does not allow here (every mapping is strict)."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    return (problem for problem in ctx.schema_problems if problem.rule == RULE_ID)
