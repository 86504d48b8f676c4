"""unknown-output-property: an expression or a `{{ run.outputs["id"]… }}` template reference
reads a property that the output it reads can never have: the producer's type is an object whose
schema forbids other keys (`additionalProperties: false`) and does not declare it, or is not an
object at all (an agent without `output_schema` answers text).

The types are the engine's (`analysis.types.dataflow`): an agent's output is validated against
its `output_schema`, and a miss fails the node (ADR-0092 §4), so a closed schema is a promise; a
transform's declared schema is not checked by the engine and is not judged. The read is
`undefined` on every run, never what the author meant: a warning (read-of-absent-value reports
the error when a property of that `undefined` is then read). An open schema or an unknown type
says nothing.

In a template the engine's path (`interpolation/path.ts` `getByPath`, HodeTech/Relavium 839f2bd)
steps only into own keys of plain objects and indices of arrays, so the read is `undefined`
without a throw, and `resolve.ts` `stringify` then refuses undefined (`unresolved_reference`):
the node surely fails, an error. A first `| default(…)` (`filters.ts`) turns it into the
default on every run instead: a warning. A failing filter after it is not reported again by
template-filter-type.
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.fixes import change_name_in
from analysis.checks.template_sites import Site
from analysis.checks.typed_reads import (
    ABSENT,
    TypedStep,
    dataflow,
    declared_names,
    shown_reference,
    template_output,
    template_reads,
    typed_sites,
)
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.expressions import OutputRead
from analysis.document.model import NodeDef
from analysis.naming import Suggestions
from analysis.schema.value_types import (
    ArrayType,
    BooleanType,
    Literals,
    NumberType,
    ObjectType,
    StringType,
    UndefinedType,
    ValueType,
)
from analysis.types.algebra import options
from analysis.types.infer import member_type
from analysis.types.prototypes import lacks_key
from analysis.types.template_types import ReferencePath, first_missing_property

RULE_ID = "unknown-output-property"
SEVERITY = Severity.WARNING
SUMMARY = "An expression reads a property the output it reads can never have."

_IDENTIFIER_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
_OUTPUT_READS = frozenset({"run.outputs"})
_TEMPLATE_NAME = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def _why(option: ValueType, key: str, origin: str) -> str:
    """Why the value has no property `key`, in words."""
    if isinstance(option, ObjectType):
        return f"its type ({origin}) is an object with no `{key}` and no other keys"
    if isinstance(option, StringType) or (isinstance(option, Literals) and all(
            isinstance(value, str) for value in option.values)):
        what = "text"
    elif isinstance(option, NumberType):
        what = "a number"
    elif isinstance(option, BooleanType):
        what = "a boolean"
    elif isinstance(option, ArrayType):
        what = "an array"
    else:
        what = "a value without properties"
    return f"it is {what} ({origin}), and has no property `{key}`"


def _is_identifier(name: str) -> bool:
    return bool(name) and name[0] in _IDENTIFIER_START and all(
        char.isalnum() or char in "_$" for char in name)


def _hint(base: ValueType, key: str) -> tuple[str, str | None]:
    """The message's "did you mean" (or the declared names), and the closest name."""
    names = declared_names(base)
    close = Suggestions(names).closest(key) if names else None
    hint = f"; did you mean `{close}`?" if close else (
        f"; it declares {', '.join(f'`{name}`' for name in names[:8])}" if names else "")
    return hint, close


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    yield from _in_expressions(ctx)
    yield from _in_templates(ctx)


def _never_has(read: OutputRead, index: int, base: ValueType, origin: str) -> bool:
    """Whether no option of `base` but null or undefined can have the member's key."""
    key = read.members[index].key_name
    present = [option for option in options(base) if not isinstance(option, ABSENT)]
    return bool(present) and all(member_type(option, key) == UndefinedType()
                                 or lacks_key(option, key) for option in present)


def _in_expressions(ctx: RuleContext) -> Iterator[Diagnostic]:
    for typed in ctx.shared(typed_sites):
        for step in typed.reported(RULE_ID, _never_has):
            yield _expression_finding(ctx, step)


def _expression_finding(ctx: RuleContext, step: TypedStep) -> Diagnostic:
    key = step.member.key_name
    present = [option for option in options(step.base) if not isinstance(option, ABSENT)]
    hint, close = _hint(step.base, key)
    site, member = step.site, step.member
    dotted = site.field.value[member.key.start - 1:member.key.start] == "."
    fixes = change_name_in(site.field, member.key.start, member.key.end, close) \
        if close is not None and (not dotted or _is_identifier(close)) else ()
    why = _why(present[0], key, step.origin)
    return site.diagnostic(
        ctx, RULE_ID, SEVERITY, member.key,
        f"{site.label} reads `{key}` of `{step.path}`, but {why}: the value is always "
        f"`undefined`{hint}",
        data={"reader": site.node.id, "target": step.read.node_id, "path": step.keys,
              "property": key, "suggestion": [close] if close else []},
        fixes=fixes,
    )


def _in_templates(ctx: RuleContext) -> Iterator[Diagnostic]:
    for site, parsed in template_reads(ctx, _OUTPUT_READS, (NodeDef,)):
        produced = template_output(ctx.shared(dataflow), site, parsed.identifier)
        if produced is None:
            continue
        missing = first_missing_property(produced.type, parsed.steps)
        if missing is not None:
            yield _template_finding(ctx, site, parsed, missing, produced.origin)


def _template_finding(ctx: RuleContext, site: Site, parsed: ReferencePath,
                      missing: tuple[int, ValueType], origin: str) -> Diagnostic:
    index, base = missing
    key = str(parsed.steps[index])
    hint, close = _hint(base, key)
    # the key's text in the field: the reference's body starts after its `{{`
    start, end = (site.ref.start + 2 + at for at in parsed.spans[index])
    dotted = site.field.value[start - 1:start] == "."
    writable = close is not None and (set(close) <= _TEMPLATE_NAME if dotted else
                                      not set(close) & set("\"'"))
    fixes = change_name_in(site.field, start, end, close) if writable else ()
    present = [option for option in options(base) if not isinstance(option, ABSENT)]
    defaulted = bool(site.ref.filters) and site.ref.filters[0].name == "default"
    outcome = "it always resolves to its default" if defaulted else \
        "it always resolves to no value, so the engine's interpolation fails and so does the node"
    shown = shown_reference(parsed, index)
    return ctx.diagnostic(
        RULE_ID, Severity.WARNING if defaulted else Severity.ERROR,
        *site.field.source_span(start, end),
        f"{site.where} reads `{key}` of `{shown}`, but {_why(present[0], key, origin)}: "
        f"{outcome}{hint}",
        {"reader": site.owner.id if isinstance(site.owner, NodeDef) else None,
         "target": parsed.identifier, "path": [str(step) for step in parsed.steps[:index + 1]],
         "property": key, "suggestion": [close] if close else []},
        fixes=fixes,
    )
