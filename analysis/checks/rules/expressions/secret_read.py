"""secret-read: an expression reads a secret input, or a context entry derived from one, by
name (`inputs.token`) or by reading every value (`JSON.stringify(ctx)`, `{ ...inputs }`).

The sandbox denies those reads: the node fails with `secret_context` when it runs. Taint flows
through context values (`{{ inputs.token }}` in a context value makes that entry secret-derived);
the graph computes it.
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity

RULE_ID = "secret-read"
SEVERITY = Severity.ERROR
SUMMARY = "An expression reads a secret input or a context entry derived from one."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    secret_inputs = ctx.graph.secret_inputs
    secret_context = ctx.graph.secret_context
    if not secret_inputs and not secret_context:
        return
    for site in ctx.expression_sites:
        for read in site.facts.scope_reads:
            if read.binding == "inputs" and read.key_name in secret_inputs:
                # An omitted optional secret is simply absent; a supplied one is a denied accessor.
                what = f"the secret input `{read.key_name}`"
                when = "whenever the secret is supplied"
            elif read.binding == "ctx" and read.key_name in secret_context:
                what = f"the context entry `{read.key_name}`, which is derived from a secret input"
                when = "when it runs"
            else:
                continue
            yield site.diagnostic(
                ctx,
                RULE_ID,
                SEVERITY,
                read.access,
                f"{site.label} reads {what}: the sandbox denies the read, so the node fails with "
                f"`secret_context` {when}. Expressions never see secrets; remove the read, or "
                "compute what you need from a non-secret input.",
                data={"binding": read.binding, "key": read.key_name},
            )
        for whole in site.facts.whole_scope_reads:
            denied = sorted(secret_inputs if whole.binding == "inputs" else secret_context)
            if not denied:
                continue
            names = ", ".join(f"`{name}`" for name in denied)
            yield site.diagnostic(
                ctx,
                RULE_ID,
                SEVERITY,
                whole.span,
                f"{site.label} reads every value of `{whole.binding}`, including the "
                f"secret-derived {names}: the sandbox denies those reads, so the node fails with "
                "`secret_context`. Read the non-secret keys one by one instead.",
                data={"binding": whole.binding, "key": None, "denied": denied},
            )
