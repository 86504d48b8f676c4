"""condition-when-type: a branch `when` that is not a boolean, string or number (error), or
that repeats an earlier branch's value under strict equality (warning: it can never match)."""

import math
from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.yaml_nodes import YScalar

RULE_ID = "condition-when-type"
SEVERITY = Severity.ERROR
SUMMARY = "A branch `when` must be a boolean, string or number, and unique within the condition."


def _kind(value: object) -> str:
    # JavaScript compares with ===: 1 and 1.0 are one value, 1 and "1" are two.
    if isinstance(value, bool):
        return "boolean"
    return "number" if isinstance(value, int | float) else "string"


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for node in ctx.nodes_of("condition"):
        seen: dict[tuple[str, object], YScalar] = {}
        for branch in node.branches:
            entry = branch.mapping.get("when")
            if entry is None:
                continue
            value = entry.value
            if isinstance(value, YScalar) and isinstance(value.value, float) \
                    and math.isnan(value.value):
                # Zod's z.number() refuses NaN (and NaN === NaN is false: it never matches).
                yield ctx.diagnostic(
                    RULE_ID, SEVERITY, value.start, value.end,
                    f"node '{node.id}': branches[{branch.index}].when is NaN, which the engine "
                    "refuses (and which never equals anything); write a number, string or "
                    "boolean",
                )
                continue
            if not isinstance(value, YScalar) or value.value is None:
                yield ctx.diagnostic(
                    RULE_ID, SEVERITY, value.start, value.end,
                    f"node '{node.id}': branches[{branch.index}].when must be a boolean, string "
                    "or number (the expression's result is compared with ===); write a value",
                )
                continue
            key = (_kind(value.value), value.value)
            if key in seen:
                first = seen[key]
                yield ctx.diagnostic(
                    RULE_ID, Severity.WARNING, value.start, value.end,
                    f"node '{node.id}': branches[{branch.index}].when repeats {value.text!r} "
                    "from an earlier branch, so this branch never matches; remove it or "
                    "change its value",
                    None, [(first.start, first.end, "the earlier branch with this value")],
                )
            else:
                seen[key] = value
