"""invalid-template: a `{{ … }}` that is not a reference the engine resolves — an unknown head,
an unknown filter, `run.id` outside save_to — or a save_to that interpolates anything but a bare
`{{ run.id }}`. Fields the engine sends verbatim (system_prompt, system_prompt_append) are not
resolved, so nothing in them is checked here."""

import re
from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.template_sites import Site
from analysis.diagnostics import Diagnostic, Fix, Severity
from analysis.document.edits import fix, replace_in_scalar
from analysis.document.model import VERBATIM_TEMPLATE_FIELDS, NodeDef, TemplateField
from analysis.document.templates import FILTER_ARGUMENTS, KNOWN_FILTERS
from analysis.naming import JS_WHITESPACE, did_you_mean

RULE_ID = "invalid-template"
SEVERITY = Severity.ERROR
SUMMARY = "A {{ … }} reference the template engine cannot resolve."

HEADS = "inputs.NAME, ctx.KEY or run.outputs[\"node-id\"]"
# The engine's load-time save_to check (packages/shared/src/node.ts SaveToSchema): remove every
# `{{ run.id }}` (JavaScript's \s around it) and refuse the path if any `{{` is left.
_WS = f"[{re.escape(JS_WHITESPACE)}]*"
_RUN_ID = re.compile(r"\{\{" + _WS + r"run\.id" + _WS + r"\}\}")


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for template in ctx.workflow.template_fields():
        if template.name == "save_to":
            yield from _save_to(ctx, template)
    for site in ctx.template_sites:
        ref = site.ref
        if site.field.name == "save_to" or site.field.name in VERBATIM_TEMPLATE_FIELDS:
            continue
        if ref.kind is None:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *site.span(),
                f"{site.where}: {{{{{ref.body}}}}} is not a template reference; use {HEADS}",
            )
            continue
        if not ref.engine_reads_head:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *site.span(),
                f"{site.where}: the engine cannot resolve {{{{{ref.body}}}}} as written (no "
                "spaces around '.', and a node output is run.outputs[\"node-id\"]); use "
                f"{HEADS}",
                fixes=_bracket_form(ctx, site),
            )
            continue
        if ref.kind == "run.id":
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
            elif used.arguments != FILTER_ARGUMENTS[used.name]:
                wanted = ('one argument, the value to use: default("…")'
                          if used.name == "default" else "no arguments")
                yield ctx.diagnostic(
                    RULE_ID, SEVERITY, *site.field.source_span(used.start, used.end),
                    f"{site.where}: filter '{used.name}' takes {wanted}, not "
                    f"{used.arguments}; the template fails when it is resolved",
                )


def _bracket_form(ctx: RuleContext, site: Site) -> tuple[Fix, ...]:
    """`{{ run.outputs.start }}` → `{{ run.outputs["start"] }}`, for a node of this workflow
    read in a node's field. Not safe: the bracket form adds a data edge (the dot form resolves
    to nothing), so it is not offered where that edge would close a cycle."""
    ref = site.ref
    owner = site.owner
    if ref.kind != "run.outputs" or ref.edge or ref.name not in ctx.workflow.nodes_by_id:
        return ()
    if not isinstance(owner, NodeDef) or owner.id is None or (
            owner.id == ref.name or owner.id in ctx.graph.ancestors(ref.name)):
        return ()
    head_start = ref.start + 2 + len(ref.body) - len(ref.body.lstrip())
    bracketed = f'run.outputs["{ref.name}"]'
    replacement = replace_in_scalar(site.field, head_start, ref.name_end, bracketed)
    if replacement is None:
        return ()
    return (fix(ctx.source, f"Write `{bracketed}`", [replacement], safe=False),)


def _save_to(ctx: RuleContext, template: TemplateField) -> Iterator[Diagnostic]:
    """One finding at the first `{{` left once every `{{ run.id }}` is removed (removing one can
    join a `{` before it and one after it into a `{{`, as in the engine)."""
    text = template.value
    kept: list[int] = []  # for each character left, where it sits in `text`
    position = 0
    for match in _RUN_ID.finditer(text):
        kept.extend(range(position, match.start()))
        position = match.end()
    kept.extend(range(position, len(text)))
    left = "".join(text[index] for index in kept)
    found = left.find("{{")
    if found == -1:
        return
    start = kept[found]
    end = next((ref.end for ref in template.references if ref.start <= start < ref.end),
               kept[found + 1] + 1)
    assert isinstance(template.owner, NodeDef)
    yield ctx.diagnostic(
        RULE_ID, SEVERITY, *template.source_span(start, end),
        f"node '{template.owner.id}' save_to: a save_to path may interpolate only "
        "{{ run.id }} — no inputs, ctx, run.outputs, filters or paths after it; write the rest "
        "of the path literally",
    )
