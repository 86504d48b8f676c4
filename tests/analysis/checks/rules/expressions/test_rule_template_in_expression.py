"""template-in-expression: `{{ … }}` that breaks an expression, quiet where it is valid JS."""

from tests.analysis.checks.rules.expressions.expression_rule_helpers import (
    diagnostics,
    range_text,
    transform,
    workflow,
)


def test_template_reference_in_an_expression() -> None:
    text = workflow(transform("shape", "{{ inputs.name }} === 'a'"))
    (found,) = diagnostics(text, "template-in-expression")
    assert range_text(text, found) == "{{ inputs.name }}"
    assert "write `inputs.name` instead of `{{ inputs.name }}`" in found.message
    assert diagnostics(text, "js-syntax")  # the syntax error is reported too


def test_valid_javascript_and_text_are_quiet() -> None:
    for expression in ("x => {{ a: 1 }}", "'{{ inputs.name }}' + `{{x}}`", "[{ a: {} }]"):
        text = workflow(transform("shape", expression))
        assert diagnostics(text, "template-in-expression") == [], expression
