"""Each expression rule points at the exact characters, in every YAML scalar style, after
non-ASCII text (and, in the double-quoted style, after an escape)."""

import pytest

from tests.analysis.checks.rules.expressions.expression_rule_helpers import (
    STYLES,
    diagnostics,
    range_text,
    scalar,
    workflow,
)

PREFIX = "String('Grüße 𝄞 — ü')"

CASES = [
    # (rule, expression after the prefix, the characters the diagnostic must cover)
    ("js-syntax", "(1 +* 2)", "*"),
    ("unordered-output-read", "run.outputs.late", "run.outputs.late"),
    ("unknown-output-reference", "run.outputs.ghost", "ghost"),
    ("forbidden-global", "Date.now()", "Date"),
    ("secret-read", "inputs.token", "inputs.token"),
    ("branches-outside-merge", "branches.length", "branches"),
    ("template-in-expression", "{{ inputs.text }}", "{{ inputs.text }}"),
]


def document(expression: str, style: str) -> str:
    return workflow(
        "    - { id: start, type: input }\n"
        "    - id: early\n"
        "      type: transform\n"
        f"      transform:{scalar(expression, style)}\n"
        "    - { id: late, type: transform, transform: '1' }\n",
        edges="[{ from: start, to: early }, { from: early, to: late }]",
        inputs="[{ name: token, type: secret, required: false }, { name: text, type: string }]",
    )


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("rule", "code", "covered"), CASES)
def test_range_is_exact_in_every_scalar_style(rule: str, code: str, covered: str, style: str):
    text = document(f"{PREFIX} + {code}", style)
    (found,) = diagnostics(text, rule)
    assert range_text(text, found) == covered


@pytest.mark.parametrize("style", ["literal", "folded"])
@pytest.mark.parametrize(("rule", "code", "covered"), CASES)
def test_range_is_exact_with_crlf_line_breaks(rule: str, code: str, covered: str, style: str):
    text = document(f"{PREFIX} + {code}", style).replace("\n", "\r\n")
    (found,) = diagnostics(text, rule)
    assert range_text(text, found) == covered
