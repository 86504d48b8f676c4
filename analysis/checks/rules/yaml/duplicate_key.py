"""duplicate-key: a mapping repeats a key (the engine refuses the file). Found by the reader."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.yaml_profile import DUPLICATE_KEY

RULE_ID = DUPLICATE_KEY
SEVERITY = Severity.ERROR
SUMMARY = "A mapping repeats a key; the engine refuses duplicate keys."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    return (problem for problem in ctx.document.problems if problem.rule == RULE_ID)
