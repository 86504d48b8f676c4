"""An input's `validation` block is checked by the input's type, as the engine checks it."""

from analysis import analyze


def test_an_enum_member_must_have_the_inputs_type() -> None:
    text = """schema_version: '1.0'
workflow:
  id: enums
  inputs:
    - { name: tier, type: string, validation: { enum: [free, 2, 'pro'] } }
    - { name: path, type: file_path, validation: { enum: [a.py, true] } }
    - { name: level, type: number, validation: { enum: [1, 2.5, '3'] } }
  nodes: [{ id: start, type: input }]
  edges: []
"""
    result = analyze(text)
    found = [(d.rule, result.source.text[result.source.offset(d.range.start):
                                          result.source.offset(d.range.end)])
             for d in result.diagnostics]
    assert found == [("invalid-value", "2"), ("invalid-value", "true"),
                     ("invalid-value", "'3'")]
    assert "quote it: '2'" in result.diagnostics[0].message
