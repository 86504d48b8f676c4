"""secret-read: secret inputs and context entries derived from them, through context taint."""

from tests.analysis.checks.rules.expressions.expression_rule_helpers import (
    diagnostics,
    range_text,
    transform,
    workflow,
)

INPUTS = "[{ name: token, type: secret, required: false }, { name: name, type: string }]"
CONTEXT = (
    "[{ key: auth, value: 'Bearer {{ inputs.token }}' },"
    " { key: header, value: 'X: {{ ctx.auth }}' },"
    " { key: team, value: 'eu {{ inputs.name }}' }]"
)


def document(expression: str) -> str:
    return workflow(transform("shape", expression), inputs=INPUTS, context=CONTEXT)


def test_secret_input_read() -> None:
    text = document('inputs["token"].length')
    (found,) = diagnostics(text, "secret-read")
    assert range_text(text, found) == 'inputs[\\"token\\"]'  # the double-quoted source
    assert "secret_context" in found.message
    assert found.data == {"binding": "inputs", "key": "token"}


def test_context_derived_from_a_secret_directly_and_transitively() -> None:
    text = document("ctx.auth + ctx.header")
    found = diagnostics(text, "secret-read")
    assert [range_text(text, d) for d in found] == ["ctx.auth", "ctx.header"]
    assert all("derived from a secret input" in d.message for d in found)


def test_clean_reads_are_quiet() -> None:
    assert diagnostics(document("inputs.name + ctx.team + ((inputs) => inputs.token)(x)"),
                       "secret-read") == []  # fmt: skip


def test_reading_every_value_reads_the_secrets_too() -> None:
    text = document("JSON.stringify(ctx, null, 2) + Object.values(inputs).length")
    found = diagnostics(text, "secret-read")
    assert [range_text(text, d) for d in found] == ["ctx", "inputs"]
    assert found[0].data == {"binding": "ctx", "key": None, "denied": ["auth", "header"]}
    assert "`auth`, `header`" in found[0].message


def test_key_only_enumeration_and_filtered_copies_are_quiet() -> None:
    expression = "Object.keys(inputs).length + JSON.stringify(ctx, ['team'])"
    assert diagnostics(document(expression), "secret-read") == []
