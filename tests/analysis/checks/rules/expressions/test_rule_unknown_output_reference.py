"""unknown-output-reference: a read of a node id no node has (a warning)."""

from analysis.diagnostics import Severity
from tests.analysis.checks.rules.expressions.expression_rule_helpers import (
    diagnostics,
    range_text,
    transform,
    workflow,
)


def test_unknown_id_with_a_suggestion() -> None:
    text = workflow(
        "    - { id: classify, type: input }\n"
        + transform("shape", 'run.outputs["clasify"].label'),
        edges="[{ from: classify, to: shape }]",
    )
    (found,) = diagnostics(text, "unknown-output-reference")
    assert found.severity is Severity.WARNING
    assert range_text(text, found) == "clasify"
    assert "did you mean `classify`?" in found.message
    assert found.data == {"reader": "shape", "target": "clasify", "suggestion": ["classify"]}


def test_existing_ids_and_computed_keys_are_quiet() -> None:
    text = workflow(
        "    - { id: classify, type: input }\n"
        + transform("shape", "run.outputs.classify + run.outputs[k] + run.outputs[`${k}`]"),
        edges="[{ from: classify, to: shape }]",
    )
    assert diagnostics(text, "unknown-output-reference") == []
