"""Schema messages say what to write, not only what is wrong."""

from analysis import analyze


def test_a_quoted_number_or_boolean_is_told_to_drop_the_quotes() -> None:
    text = """schema_version: '1.0'
workflow:
  id: quoted
  timeout_ms: '300000'
  inputs: [{ name: x, type: string, required: "true" }]
  nodes: [{ id: start, type: input }]
  edges: []
"""
    messages = [d.message for d in analyze(text).diagnostics]
    assert messages == [
        "workflow.timeout_ms must be an integer, not the string '300000'; remove the quotes: "
        "300000",
        "workflow.inputs[0] (x).required must be true or false, not the string 'true'; remove "
        "the quotes: true",
    ]
