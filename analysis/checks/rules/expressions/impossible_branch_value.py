"""impossible-branch-value: a condition branch whose `when` the condition's expression can never
produce, so the branch is never taken.

The condition handler takes the first branch whose `when` strictly equals (`===`) the
expression's result, else `default` (`core/src/engine/node-handlers/condition.ts`); a result
other than a boolean, string or number fails the node (expression-sandbox-spec.md, "Result").
When the expression's type (`analysis.types`: inferred from the types of what it reads) is a
closed set — literals, booleans — a `when` outside it never matches: a warning. A type with any
open part (a string, a number, unknown) says nothing, nor does an expression that reads nothing
of the run (a constant routes one way on purpose).
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.expression_sites import ExpressionSite
from analysis.checks.typed_reads import dataflow, kept_verdict
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.yaml_nodes import YScalar
from analysis.naming import Suggestions
from analysis.schema.value_types import (
    ArrayType,
    BooleanType,
    JsonScalar,
    Literals,
    NullType,
    ObjectType,
    UndefinedType,
    ValueType,
)
from analysis.types.algebra import options, same_literal

RULE_ID = "impossible-branch-value"
SEVERITY = Severity.WARNING
SUMMARY = "A condition branch's `when` is a value the condition's expression never produces."

# shown in a message: enough to see the set, never the whole of a long enum
SHOWN_VALUES = 6


def possible_results(value_type: ValueType) -> list[JsonScalar] | None:
    """Every result a condition may be routed by (booleans, strings, numbers), or None when the
    set is open. Other results fail the node, so they route nothing."""
    found: list[JsonScalar] = []
    for option in options(value_type):
        if isinstance(option, Literals):
            found.extend(value for value in option.values if value is not None)
        elif isinstance(option, BooleanType):
            found.extend((True, False))
        elif not _fails_the_node(option):
            return None
    return found


def _fails_the_node(option: ValueType) -> bool:
    return isinstance(option, ArrayType | NullType | ObjectType | UndefinedType)


def _reads_the_run(site: ExpressionSite) -> bool:
    """Whether the expression reads a value of the run: a constant one (`'"no"'`) routes one
    way on purpose (a branch kept for later), never by mistake."""
    facts = site.facts
    return bool(facts.output_reads or facts.scope_reads or facts.whole_scope_reads)


def _shown(value: JsonScalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else f"{value:g}" if isinstance(
        value, float) else str(value)


# One branch never taken: its place in the node's branches, its index, the message's words
# after the node's id and the suggestion.
Never = tuple[int, int, str, str | None]


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    conditions = [site.node for site in ctx.expression_sites
                  if site.node.type == "condition" and site.node.id is not None
                  and site.node.branches and _reads_the_run(site)]
    if not conditions:
        return
    data = ctx.shared(dataflow)
    for node in conditions:
        whens = tuple((branch.index, type(branch.when.value), branch.when.value)
                      if isinstance(branch.when, YScalar) else (branch.index, None, None)
                      for branch in node.branches)
        value = data.expression_value(node)
        # the verdict is a function of the value's type and the whens alone
        for at, index, words, close in kept_verdict(
                data, ("branches", node.id), (value, whens), _never_taken, value, whens):
            when = node.branches[at].when
            assert when is not None  # judged a scalar in this version's text
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, when.start, when.end,
                f"node '{node.id}': branches[{index}].when {words}",
                data={"node": node.id, "branch": index,
                      "suggestion": [close] if close else []},
            )


def _never_taken(value: ValueType, whens: tuple[tuple[int, type | None, object], ...]
                 ) -> tuple[Never, ...]:
    """The branches whose `when` the value never is, from the value's type and each branch's
    index and `when` (None when it is not a scalar)."""
    results = possible_results(value)
    if not results:  # open, or it always fails
        return ()
    shown = ", ".join(_shown(result) for result in results[:SHOWN_VALUES])
    more = f" and {len(results) - SHOWN_VALUES} more" if len(results) > SHOWN_VALUES else ""
    strings = Suggestions([result for result in results if isinstance(result, str)])
    found: list[Never] = []
    for at, (index, _, when) in enumerate(whens):
        if not isinstance(when, bool | int | float | str):
            continue  # condition-when-type's
        if any(same_literal(when, result) for result in results):
            continue
        close = strings.closest(when) if isinstance(when, str) else None
        hint = f"; did you mean {close!r}?" if close else ""
        if isinstance(when, str) and any(
                not isinstance(result, str) and _shown(result) == when for result in results):
            hint = f"; the quotes make it a string: write {when} unquoted"
        found.append((at, index, "is never the result of the condition's expression, which "
                      f"gives one of {shown}{more} (compared with ===): this branch is never "
                      f"taken{hint}", close))
    return tuple(found)
