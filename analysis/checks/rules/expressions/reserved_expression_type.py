"""reserved-expression-type: `expression_type: jmespath` or `jsonlogic` (reserved, refused)."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Fix, Severity
from analysis.document.edits import fix, remove_entry
from analysis.document.model import NodeDef
from analysis.document.yaml_nodes import YScalar

RULE_ID = "reserved-expression-type"
SEVERITY = Severity.ERROR
SUMMARY = "expression_type jmespath/jsonlogic is reserved and refused; only js exists in v1.0."

RESERVED = ("jmespath", "jsonlogic")


def expression_types(ctx: RuleContext) -> list[tuple[NodeDef, YScalar, str]]:
    """(node, value scalar, value) of every string `expression_type` on a condition/transform
    (on a merge node the key itself is refused: unknown-key). Shared with
    unknown-expression-type: `ctx.shared(expression_types)`."""
    found = []
    for node in [*ctx.nodes_of("condition"), *ctx.nodes_of("transform")]:
        entry = node.entry("expression_type")
        if entry is not None and isinstance(entry.value, YScalar) and isinstance(
                entry.value.value, str):
            found.append((node, entry.value, entry.value.value))
    return found


def use_js(ctx: RuleContext, node: NodeDef, scalar: YScalar, *, safe: bool = False
           ) -> tuple[Fix, ...]:
    """Write `js`, or drop the key (js is the only type and the default). Not safe unless
    `safe` (the key named JavaScript otherwise spelt): the expression may be written in the
    language the key named. Dropping the key stays a second, unsafe choice."""
    fixes = [fix(ctx.source, "Use `expression_type: js`", [(scalar.start, scalar.end, "js")],
                 safe=safe)]
    entry = node.entry("expression_type")
    removal = None if entry is None else remove_entry(ctx.source.text, entry)
    if removal is not None:
        fixes.append(fix(ctx.source, "Remove `expression_type` (js is the default)", [removal],
                         safe=False))
    return tuple(fixes)


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for node, scalar, value in ctx.shared(expression_types):
        if value in RESERVED:
            field = "expression" if node.type == "condition" else "transform"
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, scalar.start, scalar.end,
                f"node '{node.id}': expression_type '{value}' is reserved and not "
                f"supported; write '{field}' in JavaScript and set expression_type: js "
                "(or drop the key)",
                {"replacement": "js"},
                fixes=use_js(ctx, node, scalar),
            )
