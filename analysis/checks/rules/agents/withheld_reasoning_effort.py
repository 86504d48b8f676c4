"""withheld-reasoning-effort: an agent's `reasoning_effort` is a tier its model does not take,
so the engine never sends it.

The engine sends the authored tier only when the model's registry entry accepts it
(packages/core/src/engine/reasoning-effort.ts `gateReasoningEffort`, e1809ee, with the CLI's
resolver `effortTiersFor`, packages/llm/src/catalog/lookup.ts): a model that does not reason, or
publishes no control (`deepseek-reasoner`), withholds every tier; one that does withholds a tier
it does not list (`gpt-5-pro` takes only `high`) — never promoted to a neighbour. Only models
the registry carries are judged: an unlisted id (a custom endpoint, a model newer than the
registry) may be described by a catalog refresh, so nothing is said about it. Judged against the
agent's own `model`, which is the model the tier is first sent to."""

from collections.abc import Iterable, Iterator

from analysis.checks.agent_fields import file_agent, inline_agents, string_value
from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.edits import fix, remove_entry
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YMapping, YNode
from analysis.schema.models import Model, model

RULE_ID = "withheld-reasoning-effort"
SEVERITY = Severity.INFORMATION
SUMMARY = "A reasoning_effort the agent's model does not take: the engine withholds it."


def _why(found: Model, tier: str) -> str:
    name = f"model '{found.id}'"
    if not found.reasons:
        return f"{name} does not reason"
    if not found.reasoning_tiers:
        return f"{name} publishes no reasoning control"
    return (f"{name} does not take reasoning_effort '{tier}' (it takes "
            f"{', '.join(found.reasoning_tiers)})")


def findings(source: SourceText, agents: Iterable[YMapping]) -> Iterator[Diagnostic]:
    for agent in agents:
        effort, named = string_value(agent, "reasoning_effort"), string_value(agent, "model")
        found = model(named.text) if named is not None else None
        if effort is None or found is None or effort.text in found.reasoning_tiers:
            continue
        entry = agent.get("reasoning_effort")
        # With no tier to take, removing the field changes nothing the engine sends.
        removal = remove_entry(source.text, entry) if entry and not found.reasoning_tiers else None
        yield Diagnostic(
            source.range(effort.content_start, effort.end), SEVERITY, RULE_ID,
            f"{_why(found, effort.text)}: the engine withholds this reasoning_effort and sends "
            "none" + ("; remove it" if not found.reasoning_tiers else
                      "; choose a tier it takes or remove it"),
            {"model": found.id, "reasoning_effort": effort.text,
             "accepted": list(found.reasoning_tiers)},
            fixes=() if removal is None else (
                fix(source, "Remove `reasoning_effort`", [removal], safe=True),),
        )


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    yield from findings(ctx.source, inline_agents(ctx))


def check_agent_file(source: SourceText, root: YNode | None) -> Iterator[Diagnostic]:
    yield from findings(source, file_agent(root))
