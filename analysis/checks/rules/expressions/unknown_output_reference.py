"""unknown-output-reference: an expression reads `run.outputs` of a node id that does not exist.

The engine does not report it (the read is simply `undefined` at run time), hence a warning.
"""

from collections.abc import Iterator
from difflib import get_close_matches

from analysis.checks.context import RuleContext
from analysis.checks.expression_sites import expression_sites, output_access
from analysis.diagnostics import Diagnostic, Severity

RULE_ID = "unknown-output-reference"
SEVERITY = Severity.WARNING
SUMMARY = "An expression reads run.outputs of a node id that does not exist."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    node_ids = list(ctx.workflow.nodes_by_id)
    for site in expression_sites(ctx):
        for read in site.facts.output_reads:
            if read.node_id in ctx.workflow.nodes_by_id:
                continue
            close = get_close_matches(read.node_id, node_ids, n=1)
            fix = f"did you mean `{close[0]}`?" if close else "use the id of an existing node."
            yield site.diagnostic(
                ctx,
                RULE_ID,
                SEVERITY,
                read.key,
                f"{site.label} reads `{output_access(read.node_id)}`, but no node has the id "
                f"`{read.node_id}`: the value is `undefined` at run time. Fix the id: {fix}",
                data={"reader": site.node.id, "target": read.node_id, "suggestion": close[:1]},
            )
