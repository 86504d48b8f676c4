"""cycle: the dependency graph (edges, implicit condition/parallel edges, template data edges)
has a cycle; the engine refuses the workflow."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity

RULE_ID = "cycle"
SEVERITY = Severity.ERROR
SUMMARY = "The dependency graph has a cycle (the path is in the message and related locations)."

_HOW = {
    "explicit": "edge", "parallel": "parallel_of", "condition": "branch",
    "data": "template reference",
}


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    path = ctx.graph.cycle
    if path is None:
        return
    edges = ctx.graph.cycle_edges
    first = edges[0]
    yield ctx.diagnostic(
        RULE_ID, SEVERITY, *first.span,
        f"cycle: {' → '.join(path)}; a workflow must be acyclic: remove or redirect one of "
        "these dependencies",
        {"path": path},
        [(*edge.span, f"{_HOW[edge.kind]} {edge.source} → {edge.target}") for edge in edges],
    )
