"""invalid-template: a `{{ … }}` that is not a reference the engine resolves — an unknown head,
an unknown filter, `run.id` outside save_to, or save_to interpolating anything but run.id."""

from collections.abc import Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.naming import did_you_mean
from analysis.rules import RuleContext
from analysis.rules._templates import sites
from analysis.templates import KNOWN_FILTERS

RULE_ID = "invalid-template"
SEVERITY = Severity.ERROR
SUMMARY = "A {{ … }} reference the template engine cannot resolve."

HEADS = "inputs.NAME, ctx.KEY or run.outputs[\"node-id\"]"


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for site in sites(ctx.workflow):
        ref = site.ref
        in_save_to = site.field.name == "save_to"
        if in_save_to and ref.kind != "run.id":
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *site.span(),
                f"{site.where}: save_to may only interpolate {{{{ run.id }}}}; write the rest of "
                "the path literally",
            )
            continue
        if ref.kind is None:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *site.span(),
                f"{site.where}: {{{{{ref.body}}}}} is not a template reference; use {HEADS}",
            )
            continue
        if ref.kind == "run.id" and not in_save_to:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *site.span(),
                f"{site.where}: {{{{ run.id }}}} is only available in an output node's save_to",
            )
        for used in ref.filters:
            if used.name not in KNOWN_FILTERS:
                hint, data = did_you_mean(used.name, KNOWN_FILTERS)
                yield ctx.diagnostic(
                    RULE_ID, SEVERITY, *site.field.source_span(used.start, used.end),
                    f"{site.where}: unknown filter '{used.name}'{hint}; filters are "
                    f"{', '.join(KNOWN_FILTERS)}",
                    data or None,
                )
