"""template-filter-type: a `{{ … }}` reference whose value the engine's interpolation surely
refuses: a filter given a value of the wrong type, or an object or array written without
`| json`.

`core/src/interpolation/filters.ts` (839f2bd): `length` takes a string, list or object, and
`read_file` a file path string, else `filter_type`; `json` fails on `undefined`.
`resolve.ts` `stringify`: an object or a list fails `unserializable` ("add a `| json` filter to
embed it as text"). Each fails the node (a context value: the run, at its start). The value's
type is the dataflow's (`analysis.types`): only a type known for certain is judged — an open
or unknown one, an optional property (possibly undefined) for anything but `json`, a
transform's unchecked schema say nothing. Reads of conditions, of undeclared names, of
malformed paths and of a property an output never has (unknown-output-property's, whose
`undefined` every filter here then refuses) are other rules'.
"""

from collections.abc import Iterator, Sequence

from analysis.checks.context import RuleContext
from analysis.checks.template_sites import Site
from analysis.checks.typed_reads import (
    dataflow,
    kept_verdict,
    shown_reference,
    template_output,
    template_reads,
)
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.model import ContextDecl, NodeDef
from analysis.document.templates import TemplateFilter
from analysis.schema.value_types import ArrayType, ValueType
from analysis.types.algebra import options
from analysis.types.dataflow import Dataflow
from analysis.types.template_types import (
    FilterFailure,
    ReferencePath,
    filter_failures,
    first_missing_property,
    is_container_value,
    path_type,
)

RULE_ID = "template-filter-type"
SEVERITY = Severity.ERROR
_READS = frozenset({"inputs", "ctx", "run.outputs"})
SUMMARY = "A template filter gets a value of the wrong type, or an object is written without json."


# What the engine makes of a reference's value: the filter that fails, or what is written
# without `| json` ("a list", "an object"); None when it is written.
Verdict = tuple[FilterFailure, None] | tuple[None, str] | None


def _read_base(data: Dataflow, site: Site, parsed: ReferencePath
               ) -> tuple[ValueType, str] | None:
    """The type the reference's path starts from (the inputs' or context's record, an output)
    and where it comes from, if known for certain."""
    kind, identifier = parsed.kind, parsed.identifier
    if kind in ("inputs", "ctx"):
        record = data.inputs if kind == "inputs" else data.ctx
        if record.property(identifier) is None:
            return None  # undeclared: unknown-template-reference's
        return record, "the declared inputs" if kind == "inputs" else "the workflow's context"
    produced = template_output(data, site, identifier)
    return None if produced is None else (produced.type, produced.origin)


def _judged(base: ValueType, parsed: ReferencePath, filters: Sequence[TemplateFilter]
            ) -> Verdict:
    """The verdict on a reference of `parsed`'s path from `base` through `filters`: a function of
    those values alone (the filters' names), so it is kept across versions by them."""
    if parsed.kind in ("inputs", "ctx"):
        value_type = path_type(base, (parsed.identifier, *parsed.steps))
    elif first_missing_property(base, parsed.steps) is not None:
        return None  # unknown-output-property's
    else:
        value_type = path_type(base, parsed.steps)
    failure, final = filter_failures(value_type, filters)
    if failure is not None:
        return failure, None
    if not is_container_value(final):
        return None
    return None, "a list" if all(isinstance(option, ArrayType) for option in options(final)) \
        else "an object"


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    data = ctx.shared(dataflow)
    for site, parsed in template_reads(ctx, _READS, (NodeDef, ContextDecl)):
        read = _read_base(data, site, parsed)
        if read is None:
            continue
        base, origin = read
        filters = site.ref.filters
        names = tuple(found.name for found in filters)
        verdict = kept_verdict(data, ("filter", parsed, names), base,
                               _judged, base, parsed, filters)
        if verdict is None:
            continue
        # the message's words, made only for a finding (most sites have none)
        fails = "every run fails at its start" if isinstance(site.owner, ContextDecl) else \
            "the node fails"
        shown = shown_reference(parsed, len(parsed.steps))
        failure, what = verdict
        if failure is not None:
            found = filters[failure.index]
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *site.field.source_span(found.start, found.end),
                f"{site.where}: `| {failure.name}` expects {failure.expected}, and "
                f"`{shown}` never is one there ({origin}): the engine raises filter_type and "
                f"{fails}",
                {"filter": failure.name, "reference": shown},
            )
        else:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *site.span(),
                f"{site.where} writes `{shown}`, which is always {what} ({origin}), as text: "
                f"the engine refuses it (unserializable) and {fails}; add `| json` to embed it "
                "as JSON text",
                {"reference": shown},
            )
