"""yaml-syntax: the file is not YAML the engine reads (syntax error, aliases, over 2 MiB); a
warning for a tag that has no effect. Found by the reader (`analysis.document.yaml_compose`);
published here."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.yaml_profile import YAML_SYNTAX

RULE_ID = YAML_SYNTAX
SEVERITY = Severity.ERROR
SUMMARY = "The file is not YAML the engine accepts (syntax, aliases, size); a tag with no effect."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    return (problem for problem in ctx.document.problems if problem.rule == RULE_ID)
