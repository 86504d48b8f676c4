"""ungranted-tool: an agent node lists a tool its agent is not granted.

A node's `tools` narrows its agent's `tools` and never widens it; an agent with no `tools`
grants none. The engine refuses a widening node when it builds the run plan, before a run
starts (ADR-0094; the dispatch check `resolveGrant` in `packages/core/src/engine/agent-runner.ts`
compares the names exactly). Checked only where the grant is known and final: an inline agent
without MCP servers (an agent's `mcp_servers` add the tools they are found to offer when the
run starts, ADR-0094 §2), whose `tools` is a list of strings; an agent in another file, or an
id several agents share, is not judged."""

from collections import Counter
from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.fixes import change_name
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.model import AgentDecl
from analysis.document.yaml_nodes import YSequence
from analysis.naming import Suggestions
from analysis.schema.subset import string_items

RULE_ID = "ungranted-tool"
SEVERITY = Severity.ERROR
SUMMARY = "An agent node's tools lists a tool its agent does not grant (a node only narrows)."


def _grant(agent: AgentDecl) -> tuple[str, ...] | None:
    """The tools an inline agent grants, or None when they are not known before the run."""
    servers = agent.mapping.get("mcp_servers")
    if servers is not None and not (isinstance(servers.value, YSequence)
                                    and not servers.value.items):
        return None
    tools = agent.mapping.get("tools")
    if tools is None:
        return ()
    granted = string_items(tools.value)
    return None if granted is None else tuple(str(item.value) for item in granted)


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    workflow = ctx.workflow
    shared = {name for name, count in Counter(agent.id for agent in workflow.agents).items()
              if count > 1}
    for node in ctx.nodes_of("agent"):
        tools = node.entry("tools")
        agent = workflow.agent_for(node)
        if tools is None or agent is None or agent.is_ref or agent.id in shared:
            continue
        granted = _grant(agent)
        listed = string_items(tools.value)
        if granted is None or listed is None:
            continue
        suggestions = Suggestions(granted)
        for index, item in enumerate(listed):
            tool = str(item.value)
            if tool in granted or not tool:  # an empty name is invalid-value's
                continue
            where = f"node '{node.id}' tools[{index}]"
            if granted:
                hint, data = suggestions.did_you_mean(tool)
                message = (f"{where}: '{tool}' is not among the tools agent '{agent.id}' "
                           f"grants, and a node's tools only narrow its agent's{hint}: fix the "
                           f"name, or grant the tool on the agent (add it to the tools of agent "
                           f"'{agent.id}')")
            else:
                data = {}
                message = (f"{where}: agent '{agent.id}' grants no tools, and a node's tools only "
                           f"narrow its agent's: grant '{tool}' on the agent (a tools list on "
                           f"agent '{agent.id}') or remove it here")
            yield ctx.diagnostic(
                RULE_ID, SEVERITY, *item.span, message,
                {"tool": tool, "agent": agent.id, **data},
                fixes=change_name(ctx.source, item.span, tool, suggestions.closest(tool)),
            )
