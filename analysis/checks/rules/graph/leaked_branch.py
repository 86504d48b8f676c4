"""leaked-branch: a node a condition's branch is meant to gate that has a live in-edge from
outside the branch, so the engine runs it whichever way the condition goes.

The facts (which nodes a branch gates, which in-edges bypass it) are
`analysis.document.gating` (`leaks` of the context's `branch_gates`, taken over from the
previous version while the graph's shape is unchanged); one finding per bypassing edge, at the
read or the edge's `to`, with the branch as related information. No fix: the value has to come
through a node on the branch, which only the author can choose."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.gating import BranchGate, leaks
from analysis.document.graph import GraphEdge
from analysis.document.model import AgentDecl, NodeRef, TemplateField

RULE_ID = "leaked-branch"
SEVERITY = Severity.WARNING
SUMMARY = ("A node a condition branch gates also has a live in-edge from outside the branch, "
           "so it runs whichever way the condition goes.")


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    if not ctx.nodes_of("condition"):
        return
    for leak in leaks(ctx.graph, ctx.branch_gates):
        yield _finding(ctx, leak.gate, leak.edge, list(leak.enclosing))


def _finding(ctx: RuleContext, gate: BranchGate, edge: GraphEdge,
             outer: list[BranchGate]) -> Diagnostic:
    node = ctx.workflow.nodes_by_id[edge.target]
    start, end = edge.span
    where = ctx.source.position(start)
    at = f"line {where.line + 1}, column {where.character + 1}"
    role = ("is the target of" if edge.target == gate.target
            else "is reached only through")
    field = _field(edge)
    if field is None:
        bypass = f"edge from `{edge.source}` ({at}) leads to it from outside the branch"
        advice = "remove that edge or lead it from a node on the branch"
    else:
        bypass = f"{field} reads the output of `{edge.source}` ({at})"
        advice = ("read the value through a node on the branch (a transform before "
                  f"`{edge.target}` that reads `{edge.source}`), or drop the read")
    pause = ", and as a human gate it pauses those runs" if node.type == "human_gate" else ""
    also = ""
    if outer:
        named = ", ".join(other.label for other in outer[:3])
        more = f" and {len(outer) - 3} more" if len(outer) > 3 else ""
        plural = "es" if len(outer) > 1 else ""
        also = f" It bypasses the enclosing branch{plural} {named}{more} too."
    message = (
        f"`{edge.target}` {role} branch {gate.label}, but its {bypass}, a live in-edge "
        f"whichever way `{gate.condition}` goes: the engine runs `{edge.target}` also when "
        f"`{gate.condition}` chooses another branch{pause}. To fix, {advice}.{also}"
    )
    data = {"condition": gate.condition, "branch": list(gate.handles), "target": gate.target,
            "node": edge.target, "source": edge.source, "edge": edge.kind,
            "field": edge.read_field, "enclosing": [other.label for other in outer]}
    related = [(*span, f"branch {gate.label} selects `{gate.target}` here")
               for span in _branch_spans(ctx, gate)]
    return ctx.diagnostic(RULE_ID, SEVERITY, start, end, message, data, related)


def _template(edge: GraphEdge) -> TemplateField | None:
    """The template field a data edge's read is written in (None for a control edge)."""
    if isinstance(edge.written, NodeRef):
        return None
    template = edge.written[0]
    return template if isinstance(template, TemplateField) else None


def _field(edge: GraphEdge) -> str | None:
    """How the message names the field of a data edge's read (None for a control edge)."""
    template = _template(edge)
    if template is None:
        return None
    if isinstance(template.owner, AgentDecl):
        return f"agent `{template.owner.id}`'s `{template.name}`"
    return f"`{template.name}`"


def _branch_spans(ctx: RuleContext, gate: BranchGate) -> list[tuple[int, int]]:
    condition = ctx.workflow.nodes_by_id[gate.condition]
    refs = [branch.target for branch in condition.branches]
    refs.append(condition.default)
    return [ref.span for ref in refs if ref is not None and ref.id == gate.target]
