"""condition-output-read: an expression or template reads the output of a condition node, which
stores none.

A condition routes (`{ kind: 'branch', selected }`, `packages/core/src/engine/node-handlers/
condition.ts`); the engine records it as completed with no output (`#completedOutputs()` in
`engine.ts`; ADR-0091's amendment of 2026-09-03 names it a non-producing node). So
`run.outputs["route"]` is `undefined` in every node after it:
- an expression that always reads a property of it (`run.outputs["route"].x`, or calls it)
  throws a TypeError and the node fails: an error; a bare read is a warning (the value is
  `undefined`, never what the author meant);
- a template reference `{{ run.outputs["route"] }}` resolves to no value and fails the node
  (`unresolved_reference`, `interpolation/resolve.ts`): an error; with a first `| default(…)`
  filter it always resolves to the default: a warning.
Only reads ordered after the condition are reported (the others are unordered-output-read's),
and none in the fields the engine sends verbatim or in context values (context-output-reference).
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.expression_sites import output_access
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.model import VERBATIM_TEMPLATE_FIELDS, NodeDef

RULE_ID = "condition-output-read"
SEVERITY = Severity.ERROR
SUMMARY = "An expression or template reads the output of a condition node, which has none."

FIX = ("read the value the condition decides on where it comes from (the node its expression "
       "reads), or the output of the node it routes to")


def _expression_reads(ctx: RuleContext, conditions: set[str]) -> Iterator[Diagnostic]:
    graph = ctx.graph
    for site in ctx.expression_sites:
        reader = site.node.id
        for read in site.facts.output_reads:
            target = read.node_id
            if target not in conditions or reader is None or target not in graph.ancestors(
                    reader):
                continue
            access = output_access(target)
            if read.dereferenced:
                severity = Severity.ERROR
                outcome = (f"`{access}` is `undefined`, so reading a property of it throws and "
                           "the node fails")
            else:
                severity = Severity.WARNING
                outcome = f"`{access}` is always `undefined`"
            yield site.diagnostic(
                ctx, RULE_ID, severity, read.key,
                f"{site.label} reads the output of `{target}`, a condition node, which stores "
                f"none: {outcome}. To fix, {FIX}",
                data={"reader": reader, "target": target},
            )


def _template_reads(ctx: RuleContext, conditions: set[str]) -> Iterator[Diagnostic]:
    for site in ctx.template_sites:
        ref = site.ref
        if (ref.kind != "run.outputs" or ref.name not in conditions
                or not isinstance(site.owner, NodeDef)
                or site.field.name in VERBATIM_TEMPLATE_FIELDS or not ref.engine_reads_head):
            continue
        if ref.filters and ref.filters[0].name == "default":
            severity, outcome = Severity.WARNING, "it always resolves to its default"
        else:
            severity = Severity.ERROR
            outcome = "it resolves to no value and the node fails when it runs"
        yield ctx.diagnostic(
            RULE_ID, severity, *site.name_span(),
            f"{site.where} reads the output of '{ref.name}', a condition node, which stores "
            f"none: {outcome}. To fix, {FIX}",
            {"reader": site.owner.id, "target": ref.name},
        )


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    conditions = {node.id for node in ctx.nodes_of("condition") if node.id is not None}
    if not conditions:
        return
    yield from _expression_reads(ctx, conditions)
    yield from _template_reads(ctx, conditions)
