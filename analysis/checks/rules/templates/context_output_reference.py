"""context-output-reference: a context value reads `run.outputs` (context is resolved once,
before any node runs)."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity

RULE_ID = "context-output-reference"
SEVERITY = Severity.ERROR
SUMMARY = "Context values may not use run.outputs (they are resolved before any node runs)."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for site in ctx.template_sites:
        if site.in_context and site.ref.kind == "run.outputs":
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *site.span(),
                f"{site.where}: context is resolved before any node runs, so it cannot use "
                "run.outputs; read the output in the node's own template or expression instead",
            )
