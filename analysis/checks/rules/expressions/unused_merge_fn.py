"""unused-merge-fn: a `merge_fn` on a merge whose strategy is not `custom` (it never runs)."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity

RULE_ID = "unused-merge-fn"
SEVERITY = Severity.WARNING
SUMMARY = "merge_fn only runs with merge_strategy: custom."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for node in ctx.nodes_of("merge"):
        entry = node.entry("merge_fn")
        strategy = node.merge_strategy
        if entry is not None and strategy not in (None, "custom"):
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, entry.key.start, entry.key.end,
                f"node '{node.id}': merge_fn is ignored with merge_strategy {strategy}; set "
                "merge_strategy: custom to use it, or remove merge_fn",
                {"replacement": "custom"},
            )
