"""unknown-template-reference: `{{ inputs.x }}`, `{{ ctx.x }}` or `{{ run.outputs["id"] }}`
in a template field naming an input, context key or node that is not declared. A warning when
its first filter is `default(…)` (the engine resolves it to the default); nothing in the fields
the engine sends verbatim (system_prompt, system_prompt_append)."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.fixes import change_name_in
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.model import VERBATIM_TEMPLATE_FIELDS, ContextDecl
from analysis.naming import Suggestions

RULE_ID = "unknown-template-reference"
SEVERITY = Severity.ERROR
SUMMARY = "A template reference to an undeclared input, context key or node."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    workflow = ctx.workflow
    declared = {
        # each name once: one declared n times, with n findings, made n² work below
        "inputs": ("input", list(dict.fromkeys(
            d.name for d in workflow.inputs if d.name is not None))),
        "ctx": ("context key", list(dict.fromkeys(
            e.key for e in workflow.context if e.key is not None))),
        "run.outputs": ("node", list(workflow.nodes_by_id)),
    }
    # sets for the lookups (a list's `in` made this quadratic in the number of nodes)
    known = {kind: set(names) for kind, (_, names) in declared.items()}
    suggestions = {kind: Suggestions(names) for kind, (_, names) in declared.items()}
    for site in ctx.template_sites:
        ref = site.ref
        if ref.kind not in declared or ref.name is None or site.field.name == "save_to":
            continue  # save_to allows only {{ run.id }}: invalid-template says so
        if site.field.name in VERBATIM_TEMPLATE_FIELDS:
            continue  # sent as written: the engine resolves nothing there
        what = declared[ref.kind][0]
        owner = site.owner
        self_reference = isinstance(owner, ContextDecl) and ref.kind == "ctx" and (
            owner.key == ref.name)
        if ref.name in known[ref.kind] and not self_reference:
            continue
        excluding = ref.name if self_reference else None
        hint, data = suggestions[ref.kind].did_you_mean(ref.name, excluding)
        problem = "refers to itself" if self_reference else f"names no declared {what}"
        # getByPath gives undefined, and a first `| default(…)` turns that into its argument.
        defaulted = bool(ref.filters) and ref.filters[0].name == "default"
        consequence = (", so it always resolves to its default" if defaulted else "")
        yield ctx.diagnostic(
            RULE_ID, Severity.WARNING if defaulted else SEVERITY, *site.name_span(),
            f"{site.where}: {{{{ {ref.body.strip()} }}}} {problem}{consequence}{hint}; declare "
            "it or fix the name",
            {"name": ref.name, **data},
            fixes=change_name_in(site.field, ref.name_start, ref.name_end,
                                 suggestions[ref.kind].closest(ref.name, excluding)),
        )
