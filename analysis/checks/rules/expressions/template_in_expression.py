"""template-in-expression: `{{ … }}` template syntax written in a bare JavaScript expression.

Expression fields are never interpolated. Reported only where it breaks the expression (the
engine's parser refuses it): `x => {{ a: 1 }}` is valid JavaScript (nested blocks) and stays
quiet, and `{{` inside a string or comment is text.
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.expression_sites import syntax_problem
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.edits import fix, replace_in_scalar

RULE_ID = "template-in-expression"
SEVERITY = Severity.ERROR
SUMMARY = "`{{ … }}` template syntax in a bare JavaScript expression, which is never interpolated."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for site in ctx.expression_sites:
        braces = site.facts.template_braces
        if not braces or syntax_problem(site.field.value) is None:
            continue
        for span in braces:
            text = site.field.value[span.start : span.end]
            inner = text[2:-2].strip() if text.endswith("}}") else ""
            advice = f"write `{inner}` instead of `{text}`" if inner else "remove the `{{ }}`"
            # The variable the braces were meant to read: what the author evidently meant.
            unbraced = replace_in_scalar(site.field, span.start, span.end, inner) if inner else None
            yield site.diagnostic(
                ctx,
                RULE_ID,
                SEVERITY,
                span,
                f"{site.label} contains template syntax `{{{{ … }}}}`, but expression fields "
                f"are bare JavaScript and are never interpolated: {advice} (`inputs`, `ctx` and "
                "`run` are variables here).",
                data={"node": site.node.id, "field": site.field.name},
                fixes=() if unbraced is None else (
                    fix(ctx.source, f"Write `{inner}` instead of `{text}`", [unbraced], safe=True),
                ),
            )
