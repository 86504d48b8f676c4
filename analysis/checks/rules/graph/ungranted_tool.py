"""ungranted-tool: an agent node lists a tool its agent is not granted.

A node's `tools` narrows its agent's `tools` and never widens it; an agent with no `tools`
grants none. The engine refuses a widening node when it builds the run plan, before a run
starts (ADR-0094; the dispatch check `resolveGrant` in `packages/core/src/engine/agent-runner.ts`
compares the names exactly). Checked only where the grant is known and final: an agent
without MCP servers (an agent's `mcp_servers` add the tools they are found to offer when the
run starts, ADR-0094 §2), whose `tools` is a list of strings. The agent is the inline one, or,
with a workspace index, the one valid agent file the `agent_ref` resolves to (a `$ref` file or
the project's agent files): ADR-0094 §5 has the plan-build check cover a `$ref` agent
once the host supplies it, and `resolveGrant` refuses the widening node at dispatch either way.
An id several inline agents share, or several files define, is not judged."""

from collections import Counter
from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.fixes import change_name
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.model import AgentDecl, NodeDef
from analysis.naming import Suggestions
from analysis.project.workspace import AgentEntry, declared_grant
from analysis.schema.subset import string_items

RULE_ID = "ungranted-tool"
SEVERITY = Severity.ERROR
SUMMARY = "An agent node's tools lists a tool its agent does not grant (a node only narrows)."


def _grant(ctx: RuleContext, node: NodeDef, shared: set[str | None]
           ) -> tuple[str, tuple[str, ...]] | None:
    """The node's agent id and the tools it grants, when both are known before the run."""
    agent: AgentDecl | AgentEntry | None = ctx.workflow.agent_for(node)
    if agent is None and ctx.resolution is not None and node.agent_ref is not None:
        agent = ctx.resolution.agent(node.agent_ref.id)
    if agent is None or agent.id in shared:
        return None
    if isinstance(agent, AgentEntry):
        granted = declared_grant(agent.mapping) if agent.valid else None
    else:
        granted = None if agent.is_ref else declared_grant(agent.mapping)
    return None if granted is None or agent.id is None else (agent.id, granted)


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    workflow = ctx.workflow
    shared: set[str | None] = {
        name for name, count in Counter(agent.id for agent in workflow.agents).items()
        if count > 1}
    for node in ctx.nodes_of("agent"):
        tools = node.entry("tools")
        known = _grant(ctx, node, shared) if tools is not None else None
        listed = string_items(tools.value) if tools is not None else None
        if known is None or listed is None:
            continue
        agent_id, granted = known
        suggestions = Suggestions(granted)
        for index, item in enumerate(listed):
            tool = str(item.value)
            if tool in granted or not tool:  # an empty name is invalid-value's
                continue
            where = f"node '{node.id}' tools[{index}]"
            if granted:
                hint, data = suggestions.did_you_mean(tool)
                message = (f"{where}: '{tool}' is not among the tools agent '{agent_id}' "
                           f"grants, and a node's tools only narrow its agent's{hint}: fix the "
                           f"name, or grant the tool on the agent (add it to the tools of agent "
                           f"'{agent_id}')")
            else:
                data = {}
                message = (f"{where}: agent '{agent_id}' grants no tools, and a node's tools only "
                           f"narrow its agent's: grant '{tool}' on the agent (a tools list on "
                           f"agent '{agent_id}') or remove it here")
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *item.span, message,
                {"tool": tool, "agent": agent_id, **data},
                fixes=change_name(ctx.source, item.span, tool, suggestions.closest(tool)),
            )
