"""missing-merge-fn: `merge_strategy: custom` without a `merge_fn`."""

from collections.abc import Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.rules import RuleContext

RULE_ID = "missing-merge-fn"
SEVERITY = Severity.ERROR
SUMMARY = "A merge node with merge_strategy: custom needs a merge_fn."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for node in ctx.workflow.nodes:
        entry = node.entry("merge_strategy")
        if node.type == "merge" and node.merge_strategy == "custom" and node.entry(
            "merge_fn"
        ) is None:
            assert entry is not None
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, entry.value.start, entry.value.end,
                f"node '{node.id}': merge_strategy custom needs a merge_fn (a JavaScript "
                "expression over `branches`); add merge_fn or pick concat, object_merge or first",
            )
