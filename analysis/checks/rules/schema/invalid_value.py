"""invalid-value: a value of the wrong type, outside its enum or range, or not kebab-case;
also a non-string mapping key (found by the reader)."""

from collections.abc import Iterator
from itertools import chain

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.schema.walk import INVALID_VALUE

RULE_ID = INVALID_VALUE
SEVERITY = Severity.ERROR
SUMMARY = "A value has the wrong type, is not one of the allowed values, or is malformed."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    return (problem for problem in chain(ctx.document.problems, ctx.schema_problems)
            if problem.rule == RULE_ID)
