"""deprecated-model: an agent (or an agent node's override, or a fallback alternate) names a
model the engine's registry flags deprecated — its announced retirement date has passed.

The engine flags such a model and never forbids it (ADR-0064 §7): it is still sent to the
provider, which may no longer serve it. Deprecation is the registry's retirement overlay
(packages/llm/src/catalog/deprecations.ts) and `deprecated = now >= deprecatedAt`
(packages/llm/src/model-catalog.ts `buildEntry`), looked up by model id alone."""

from collections.abc import Iterable, Iterator

from analysis.checks.agent_fields import (
    file_agent,
    inline_agents,
    model_values,
    string_value,
)
from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YMapping, YNode, YScalar
from analysis.schema.models import model

RULE_ID = "deprecated-model"
SEVERITY = Severity.INFORMATION
SUMMARY = "A model the engine's registry flags deprecated (retired): still sent, flagged only."


def findings(source: SourceText, scalars: Iterable[YScalar]) -> Iterator[Diagnostic]:
    for scalar in scalars:
        found = model(scalar.text)
        if found is None or not found.deprecated():
            continue
        yield Diagnostic(
            source.range(scalar.content_start, scalar.end), SEVERITY, RULE_ID,
            f"model '{found.id}' ({found.display_name}) was retired on {found.retirement_day}: "
            f"the engine flags it deprecated but still sends it, and {found.provider} may no "
            "longer serve it; choose a current model",
            {"model": found.id, "deprecated_at": found.deprecated_at},
        )


def _agent_models(mappings: Iterable[YMapping]) -> Iterator[YScalar]:
    for mapping in mappings:
        yield from model_values(mapping)


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    overrides = (string_value(node.mapping, "model") for node in ctx.nodes_of("agent"))
    yield from findings(ctx.source, [*_agent_models(inline_agents(ctx)),
                                     *(scalar for scalar in overrides if scalar is not None)])


def check_agent_file(source: SourceText, root: YNode | None) -> Iterator[Diagnostic]:
    yield from findings(source, _agent_models(file_agent(root)))
