"""unknown-output-property: an expression reads a property that the output it reads can never
have: the producer's type is an object whose schema forbids other keys
(`additionalProperties: false`) and does not declare it, or is not an object at all (an agent
without `output_schema` answers text).

The types are the engine's (`analysis.types.dataflow`): an agent's output is validated against
its `output_schema`, and a miss fails the node (ADR-0092 §4), so a closed schema is a promise; a
transform's declared schema is not checked by the engine and is not judged. The read is
`undefined` on every run, never what the author meant: a warning (read-of-absent-value reports
the error when a property of that `undefined` is then read). An open schema or an unknown type
says nothing.
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.fixes import change_name_in
from analysis.checks.typed_reads import ABSENT, declared_names, typed_steps
from analysis.diagnostics import Diagnostic, Severity
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

RULE_ID = "unknown-output-property"
SEVERITY = Severity.WARNING
SUMMARY = "An expression reads a property the output it reads can never have."

_IDENTIFIER_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")


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


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for step in ctx.shared(typed_steps):
        key = step.member.key_name
        present = [option for option in options(step.base) if not isinstance(option, ABSENT)]
        if not present or not all(member_type(option, key) == UndefinedType()
                                  or lacks_key(option, key) for option in present):
            continue
        names = declared_names(step.base)
        close = Suggestions(names).closest(key) if names else None
        hint = f"; did you mean `{close}`?" if close else (
            f"; it declares {', '.join(f'`{name}`' for name in names[:8])}" if names else "")
        site, member = step.site, step.member
        dotted = site.field.value[member.key.start - 1:member.key.start] == "."
        fixes = change_name_in(site.field, member.key.start, member.key.end, close) \
            if close is not None and (not dotted or _is_identifier(close)) else ()
        why = _why(present[0], key, step.origin)
        yield site.diagnostic(
            ctx, RULE_ID, SEVERITY, member.key,
            f"{site.label} reads `{key}` of `{step.path}`, but {why}: the value is always "
            f"`undefined`{hint}",
            data={"reader": site.node.id, "target": step.read.node_id, "path": step.keys,
                  "property": key, "suggestion": [close] if close else []},
            fixes=fixes,
        )
