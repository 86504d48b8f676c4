"""secret-in-template: `{{ secrets.x }}`, or an input / context entry that carries a secret (a
secret input, or one whose default or value reads a secret, directly or through others), in a
node or agent template — the engine refuses these at load with `secret_interpolation`."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.graph import taint_chain

RULE_ID = "secret-in-template"
SEVERITY = Severity.ERROR
SUMMARY = "Templates cannot read secrets: {{ secrets.x }} or a secret input/context in a prompt."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    taint = ctx.graph.template_taint
    for site in ctx.template_sites:
        ref = site.ref
        if site.field.name == "save_to":
            continue  # save_to may interpolate only {{ run.id }}: invalid-template says so
        if ref.kind == "secrets":
            message = (
                f"{site.where}: {{{{ secrets.{ref.name} }}}} does not exist in Relavium "
                "templates; declare an input of type secret and pass it through a context entry "
                "to the tool that needs it"
            )
        elif site.in_context:
            continue  # context values may be built from secrets: they become secret-derived
        elif ref.kind in ("inputs", "ctx") and f"{ref.kind}.{ref.name}" in taint:
            chain = taint_chain(taint, f"{ref.kind}.{ref.name}")
            what = "input" if ref.kind == "inputs" else "context"
            carries = ("is a secret" if len(chain) == 1
                       else f"carries a secret ({' ← '.join(chain)})")
            message = (f"{site.where}: {what} '{ref.name}' {carries}, and templates may not "
                       "print secrets; remove the reference")
        else:
            continue
        yield ctx.diagnostic(RULE_ID, SEVERITY, *site.span(), message, {"name": ref.name})
