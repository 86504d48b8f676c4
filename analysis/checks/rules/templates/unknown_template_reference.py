"""unknown-template-reference: `{{ inputs.x }}`, `{{ ctx.x }}` or `{{ run.outputs["id"] }}`
in a template field naming an input, context key or node that is not declared — or, in a context
value, a key declared at or after its own entry (the engine resolves the context once, in
declared order, each entry seeing only the ones before it: `interpolation/resolve.ts`
`resolveContext`, HodeTech/Relavium 839f2bd; every run of such a file fails). A warning when
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
    context_position: dict[str, int] = {}
    for entry in workflow.context:
        if entry.key is not None:
            context_position.setdefault(entry.key, entry.index)
    for site in ctx.template_sites:
        ref = site.ref
        if ref.kind not in declared or ref.name is None or site.field.name == "save_to":
            continue  # save_to allows only {{ run.id }}: invalid-template says so
        if site.field.name in VERBATIM_TEMPLATE_FIELDS:
            continue  # sent as written: the engine resolves nothing there
        what = declared[ref.kind][0]
        reading = site.owner if isinstance(site.owner, ContextDecl) and ref.kind == "ctx" else None
        self_reference = reading is not None and reading.key == ref.name
        declared_later = (reading is not None and not self_reference
                          and context_position.get(ref.name, -1) > reading.index)
        if ref.name in known[ref.kind] and not self_reference and not declared_later:
            continue
        excluding = ref.name if self_reference else None
        if declared_later:
            # the name is right: what is wrong is the order, so no "did you mean" and no rename
            hint, data = f"; move `{ref.name}` above this entry", dict[str, str]()
        else:
            hint, data = suggestions[ref.kind].did_you_mean(ref.name, excluding)
        problem = ("refers to itself" if self_reference else
                   f"reads `{ref.name}`, declared after this entry (the engine resolves the "
                   "context in declared order)" if declared_later else f"names no declared {what}")
        # getByPath gives undefined, and a first `| default(…)` turns that into its argument.
        defaulted = bool(ref.filters) and ref.filters[0].name == "default"
        consequence = (", so it always resolves to its default" if defaulted else "")
        yield ctx.diagnostic(
            RULE_ID, Severity.WARNING if defaulted else SEVERITY, *site.name_span(),
            f"{site.where}: {{{{ {ref.body.strip()} }}}} {problem}{consequence}{hint}"
            + ("" if declared_later else "; declare it or fix the name"),
            {"name": ref.name, **data},
            fixes=() if declared_later else change_name_in(
                site.field, ref.name_start, ref.name_end,
                suggestions[ref.kind].closest(ref.name, excluding)),
        )
