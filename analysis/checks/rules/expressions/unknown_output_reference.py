"""unknown-output-reference: an expression reads `run.outputs` of a node id that does not exist.

The engine does not report it (the read is simply `undefined` at run time), hence a warning.
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.expression_sites import output_access
from analysis.diagnostics import Diagnostic, Severity
from analysis.naming import Suggestions

RULE_ID = "unknown-output-reference"
SEVERITY = Severity.WARNING
SUMMARY = "An expression reads run.outputs of a node id that does not exist."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    known = ctx.workflow.nodes_by_id
    suggestions = Suggestions(known)
    for site in ctx.expression_sites:
        for read in site.facts.output_reads:
            if read.node_id in known:
                continue
            close = suggestions.closest(read.node_id)
            suggestion = [] if close is None else [close]
            fix = f"did you mean `{close}`?" if suggestion else "use the id of an existing node."
            yield site.diagnostic(
                ctx,
                RULE_ID,
                SEVERITY,
                read.key,
                f"{site.label} reads `{output_access(read.node_id)}`, but no node has the id "
                f"`{read.node_id}`: the value is `undefined` at run time. Fix the id: {fix}",
                data={"reader": site.node.id, "target": read.node_id, "suggestion": suggestion},
            )
