"""read-of-absent-value: an expression always reads a property of a value that is certainly
`undefined` or `null` there, so it throws a TypeError and the node fails on every run.

`run.outputs.classify.topic.length` where classify's schema forbids keys it does not declare and
declares no `topic`; `run.outputs.fan.x` where `fan` is a parallel (it stores null). Only a read
that throws on every evaluation counts: `?.`, `??`, `&&`, a ternary's branch or a function that
may not be called keep it quiet, as does any type not known for certain (a transform's declared
schema, an open object, an optional property).
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.typed_reads import ABSENT, TypedStep, typed_sites
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.expressions import OutputRead
from analysis.schema.value_types import NullType, ValueType
from analysis.types.algebra import options

RULE_ID = "read-of-absent-value"
SEVERITY = Severity.ERROR
SUMMARY = "An expression reads a property of a value that is certainly undefined or null."


def _throws(read: OutputRead, index: int, base: ValueType, origin: str) -> bool:
    """Whether the member is read, throwing, of a value that is always null or undefined."""
    return read.members[index].throws and all(isinstance(option, ABSENT)
                                              for option in options(base))


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for typed in ctx.shared(typed_sites):
        for step in typed.reported(RULE_ID, _throws):
            yield _finding(ctx, step)


def _finding(ctx: RuleContext, step: TypedStep) -> Diagnostic:
    member = step.member
    absent = "null" if all(isinstance(option, NullType) for option in options(step.base)) \
        else "undefined"
    site = step.site
    return site.diagnostic(
        ctx, RULE_ID, SEVERITY, member.key,
        f"{site.label} reads `{member.key_name}` of `{step.path}`, which is always "
        f"`{absent}` ({step.origin}): the read throws a TypeError and the node fails. Read "
        "a property the output has, or guard the read with `?.`",
        data={"reader": site.node.id, "target": step.read.node_id, "path": step.keys,
              "property": member.key_name},
    )
