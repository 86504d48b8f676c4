"""missing-merge-fn: `merge_strategy: custom` without a `merge_fn`, or with an empty one (the
engine refuses `''`; a blank one is an empty expression, a SyntaxError when the node runs)."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.yaml_nodes import YScalar

RULE_ID = "missing-merge-fn"
SEVERITY = Severity.ERROR
SUMMARY = "A merge node with merge_strategy: custom needs a merge_fn."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for node in ctx.nodes_of("merge"):
        if node.merge_strategy != "custom":
            continue
        strategy = node.entry("merge_strategy")
        merge_fn = node.entry("merge_fn")
        assert strategy is not None
        if merge_fn is None:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, strategy.value.start, strategy.value.end,
                f"node '{node.id}': merge_strategy custom needs a merge_fn (a JavaScript "
                "expression over `branches`); add merge_fn or pick concat, object_merge or first",
            )
        elif isinstance(merge_fn.value, YScalar) and isinstance(merge_fn.value.value, str) and (
            not merge_fn.value.value.strip()
        ):
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, merge_fn.value.start, merge_fn.value.end,
                f"node '{node.id}': merge_fn is empty, but merge_strategy custom runs it; write "
                "a JavaScript expression over `branches`, or pick concat, object_merge or first",
            )
