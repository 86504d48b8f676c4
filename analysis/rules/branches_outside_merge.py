"""branches-outside-merge: `branches` used in a condition or transform expression.

Only a merge node's `merge_fn` gets a `branches` binding; anywhere else it is not defined and the
expression throws a ReferenceError when the node runs.
"""

from collections.abc import Iterator

from analysis.diagnostics import Diagnostic, Severity
from analysis.rules import RuleContext
from analysis.rules._expression_sites import expression_sites

RULE_ID = "branches-outside-merge"
SEVERITY = Severity.ERROR
SUMMARY = "`branches` is used outside a merge node's merge_fn, where it is not defined."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for site in expression_sites(ctx):
        if site.node.type == "merge":
            continue
        for span in site.facts.branches_uses:
            yield site.diagnostic(
                ctx,
                RULE_ID,
                SEVERITY,
                span,
                f"{site.label} uses `branches`, which exists only in a merge node's `merge_fn`: "
                f"in a {site.node.type} expression it is not defined (a ReferenceError at run "
                'time). Read upstream results through `run.outputs["<node-id>"]` instead.',
                data={"node": site.node.id, "field": site.field.name},
            )
