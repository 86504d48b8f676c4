"""branches-outside-merge: `branches` dereferenced in a condition or transform expression.

Only a merge node's `merge_fn` gets a list in `branches`; the engine binds it to null everywhere
else (packages/core/src/expression/sandbox.ts buildProgram: `branches: scope.branches ?? null`),
so `branches[0]`, `branches.length` or `branches.map(…)` throw a TypeError when the node runs,
while `typeof branches` or `branches ?? []` evaluate fine and are not reported.
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity

RULE_ID = "branches-outside-merge"
SEVERITY = Severity.ERROR
SUMMARY = "`branches` is dereferenced outside a merge node's merge_fn, where it is null."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for site in ctx.expression_sites:
        if site.node.type == "merge":
            continue
        for span in site.facts.branches_null_derefs:
            yield site.diagnostic(
                ctx,
                RULE_ID,
                SEVERITY,
                span,
                f"{site.label} uses `branches`, which holds the branch results only in a merge "
                f"node's `merge_fn`: in a {site.node.type} expression it is null, so this throws "
                "a TypeError (cannot read properties of null) at run time. Read upstream "
                'results through `run.outputs["<node-id>"]` instead.',
                data={"node": site.node.id, "field": site.field.name},
            )
