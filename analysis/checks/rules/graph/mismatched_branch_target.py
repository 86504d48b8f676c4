"""mismatched-branch-target: an edge `cond:handle → X` where that branch's target_node is not X."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity

RULE_ID = "mismatched-branch-target"
SEVERITY = Severity.ERROR
SUMMARY = "A handle edge must go to the target_node of the branch it names."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for edge, node, branch in ctx.condition_edges:
        if edge.to is None or branch is None:
            continue
        if branch.target is not None and branch.target.id != edge.to.id:
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *edge.to.span,
                f"edges[{edge.index}]: branch '{edge.handle}' of condition '{node.id}' "
                f"targets '{branch.target.id}', but this edge goes to '{edge.to.id}'; make "
                "them the same node",
                {"replacement": branch.target.id},
                [(*branch.target.span, f"branch '{edge.handle}' targets this node")],
            )
