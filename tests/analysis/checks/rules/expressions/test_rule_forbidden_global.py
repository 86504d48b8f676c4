"""forbidden-global: each absent capability, with the reason and a way out."""

import pytest

from tests.analysis.checks.rules.expressions.expression_rule_helpers import (
    diagnostics,
    range_text,
    transform,
    workflow,
)


@pytest.mark.parametrize(
    ("expression", "covered", "why"),
    [
        ("Date.now()", "Date", "a clock"),
        ("Math.random() > 0.5", "Math.random", "randomness"),
        ("new Promise(r => r(1))", "Promise", "synchronous"),
        ("fetch('https://example.com')", "fetch", "no I/O"),
        ("new Intl.NumberFormat().format(1)", "Intl", "locale data"),
        ("new Proxy({}, {})", "Proxy", "intercepts"),
    ],
)
def test_reports_the_use_and_why(expression: str, covered: str, why: str) -> None:
    text = workflow(transform("shape", expression))
    (found,) = diagnostics(text, "forbidden-global")
    assert range_text(text, found) == covered
    assert why in found.message
    assert "Instead," in found.message


def test_shadowed_typeof_and_properties_are_quiet() -> None:
    expression = "((Date) => Date)(1) + typeof fetch + inputs.Date + Math.max(1, 2)"
    assert diagnostics(workflow(transform("shape", expression)), "forbidden-global") == []
