"""Where agents are written, for the rules that read an agent's `model` and `reasoning_effort`:
the inline agents of a workflow (not a `{ $ref }` entry, whose fields live in its file) and the
agent of an agent file (its top-level mapping)."""

from __future__ import annotations

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.document.yaml_nodes import YMapping, YNode, YScalar, YSequence


def inline_agents(ctx: RuleContext) -> Iterator[YMapping]:
    for agent in ctx.workflow.agents:
        if not agent.is_ref:
            yield agent.mapping


def file_agent(root: YNode | None) -> Iterator[YMapping]:
    if isinstance(root, YMapping):
        yield root


def string_value(mapping: YMapping, key: str) -> YScalar | None:
    """The value of `key` when it is a string scalar (anything else is the schema's to report)."""
    entry = mapping.get(key)
    if entry is None or not isinstance(entry.value, YScalar):
        return None
    return entry.value if isinstance(entry.value.value, str) else None


def model_values(mapping: YMapping) -> Iterator[YScalar]:
    """An agent's `model` and each `fallback_chain` alternate's, in authored order."""
    if (primary := string_value(mapping, "model")) is not None:
        yield primary
    chain = mapping.get("fallback_chain")
    if chain is not None and isinstance(chain.value, YSequence):
        for item in chain.value.items:
            if isinstance(item, YMapping) and (alternate := string_value(item, "model")):
                yield alternate
