"""secret-in-template: `{{ secrets.x }}` anywhere, or a secret input / secret-derived context
entry in a node or agent template (the engine refuses it with `secret_reference`)."""

from collections.abc import Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.rules import RuleContext
from analysis.rules._templates import sites

RULE_ID = "secret-in-template"
SEVERITY = Severity.ERROR
SUMMARY = "Templates cannot read secrets: {{ secrets.x }} or a secret input/context in a prompt."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    graph = ctx.graph
    for site in sites(ctx.workflow):
        ref = site.ref
        if ref.kind == "secrets":
            message = (
                f"{site.where}: {{{{ secrets.{ref.name} }}}} does not exist in Relavium "
                "templates; declare an input of type secret and pass it through a context entry "
                "to the tool that needs it"
            )
        elif site.in_context:
            continue  # context values may be built from secrets: they become secret-derived
        elif ref.kind == "inputs" and ref.name in graph.secret_inputs:
            message = (f"{site.where}: input '{ref.name}' is a secret, and templates may not "
                       "print secrets; remove the reference")
        elif ref.kind == "ctx" and ref.name in graph.secret_context:
            message = (f"{site.where}: context '{ref.name}' is built from a secret input, and "
                       "templates may not print it; remove the reference")
        else:
            continue
        yield ctx.diagnostic(RULE_ID, SEVERITY, *site.span(), message, {"name": ref.name})
