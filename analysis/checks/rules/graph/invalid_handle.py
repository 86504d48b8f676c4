"""invalid-handle: an edge's `from` handle that the engine refuses — a handle on a node that is
not a condition, a handle no branch has, or a handle-less edge out of a condition."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.model import NodeDef
from analysis.naming import Suggestions, article

RULE_ID = "invalid-handle"
SEVERITY = Severity.ERROR
SUMMARY = "An edge handle (`from: 'node:handle'`) that does not fit the source node."


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for node_type, edges in ctx.edges_by_source_type.items():
        if node_type == "condition":
            continue
        for edge, node in edges:
            if edge.handle is not None:
                where = f"edges[{edge.index}].from"
                yield ctx.diagnostic(
                    RULE_ID, SEVERITY, *edge.handle_span(),
                    f"{where}: node '{node.id}' is {article(node.type)} {node.type} node, and "
                    f"only condition nodes have handles; write from: {node.id}",
                    {"replacement": node.id},
                )
    suggestions: dict[NodeDef, Suggestions] = {}  # a condition's, asked about each bad edge
    for edge, node, branch in ctx.condition_edges:
        if edge.from_field is None or branch is not None:
            continue  # no `from` at all (missing-field), or a handle that names a branch
        handles = node.handles
        where = f"edges[{edge.index}].from"
        if edge.handle is None:
            choices = (f"one of {', '.join(repr(f'{node.id}:{h}') for h in handles)}" if handles
                       else f"it has no branches yet: add one, then write '{node.id}:<when>'")
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *edge.source_span(),
                f"{where}: an edge out of condition '{node.id}' needs a handle naming a branch "
                f"({choices})",
            )
        else:
            hint, data = suggestions.setdefault(node, Suggestions(handles)).did_you_mean(
                edge.handle)
            # The engine reaches `default` only when no branch matches: it is not a handle.
            if edge.handle == "default" and node.default:
                hint = (f"; 'default' is not a handle (the engine routes to '{node.default.id}' "
                        "itself when no branch matches): remove this edge")
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *edge.handle_span(),
                f"{where}: condition '{node.id}' has no branch with when '{edge.handle}'{hint}; "
                f"its handles are: {', '.join(handles) or 'none'}",
                data or None,
            )
