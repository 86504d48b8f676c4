"""Property test: any expression text, in any scalar style, analyses without a rule failing."""

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.checks.analyze import INTERNAL_ERROR, analyze
from tests.analysis.checks.rules.expressions.expression_rule_helpers import STYLES, scalar, workflow
from tests.analysis.document.expressions.test_expression_fuzz import js_like


@settings(max_examples=150, deadline=None)
@given(js_like, st.sampled_from(STYLES))
def test_no_expression_rule_fails_on_any_text(expression: str, style: str) -> None:
    if style == "folded" and " + " not in expression:
        expression = f"a + {expression}"
    text = workflow(
        "    - { id: start, type: input }\n"
        "    - id: shape\n"
        "      type: transform\n"
        f"      transform:{scalar(expression, style)}\n",
        edges="[{ from: start, to: shape }]",
        inputs="[{ name: token, type: secret, required: false }]",
    )
    result = analyze(text)
    assert [d for d in result.diagnostics if d.rule == INTERNAL_ERROR] == []
