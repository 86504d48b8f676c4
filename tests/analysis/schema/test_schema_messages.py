"""Schema messages say what to write, not only what is wrong."""

from analysis.checks.analyze import analyze


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


def test_an_empty_custom_merge_fn_is_missing() -> None:
    template = """schema_version: '1.0'
workflow:
  id: merges
  nodes:
    - {{ id: join, type: merge, merge_strategy: {strategy}, merge_fn: {merge_fn} }}
  edges: []
"""
    for merge_fn in ("''", '"  "', '"\\n"'):
        result = analyze(template.format(strategy="custom", merge_fn=merge_fn))
        [diagnostic] = result.diagnostics
        assert diagnostic.rule == "missing-merge-fn" and "merge_fn is empty" in diagnostic.message
        assert diagnostic.range.start.line == 4
    # Ignored by any other strategy: only unused-merge-fn's warning.
    result = analyze(template.format(strategy="concat", merge_fn="''"))
    assert [d.rule for d in result.diagnostics] == ["unused-merge-fn"]


def test_yaml_syntax_errors_say_what_to_do_where_the_mistake_is() -> None:
    head = "schema_version: '1.0'\nworkflow:\n"
    cases = {
        # A ternary in a plain scalar: the most common YAML trap for expressions.
        "  id: t\n  nodes:\n    - id: a\n      type: condition\n"
        "      expression: inputs.x > 1 ? 'high' : 'low'\n":
            ((6, 40), "quote the whole value, or write it as a '|' block scalar"),
        "\tid: t\n": ((2, 0), "replace the tab with spaces"),
        # An unclosed quote is reported where it opens, not at the end of the file.
        "  id: 'unclosed\n  nodes: []\n  edges: []\n":
            ((2, 6), "the quoted scalar that starts here is never closed"),
    }
    for body, ((line, character), advice) in cases.items():
        [diagnostic] = analyze(head + body).diagnostics
        assert diagnostic.rule == "yaml-syntax"
        assert (diagnostic.range.start.line, diagnostic.range.start.character) == (line, character)
        assert advice in diagnostic.message


def test_a_value_starting_with_a_yaml_indicator_is_told_to_quote() -> None:
    head = ("schema_version: '1.0'\nworkflow:\n  id: t\n  nodes:\n    - id: a\n"
            "      type: transform\n      transform: ")
    for expression in ("[1, 2].map(x => x)", '"a" + inputs.x', "`${inputs.x}`", "@x"):
        [diagnostic] = analyze(head + expression + "\n  edges: []\n").diagnostics
        assert diagnostic.rule == "yaml-syntax", expression
        assert f"this value starts with {expression[0]!r}" in diagnostic.message
        assert "write it as a '|' block scalar, or quote the whole value" in diagnostic.message
    # A mistake inside a flow list that is meant as YAML gets no such hint.
    [diagnostic] = analyze(head.replace("transform: ", "transform: '1'\n  tags: ")
                           + "[a, {b: c d: e}]\n  edges: []\n").diagnostics
    assert "starts with" not in diagnostic.message
    negation = [d.message for d in analyze(head + "!inputs.flag\n  edges: []\n").diagnostics]
    assert any("if the '!' is JavaScript's not" in message for message in negation)


def test_an_object_literal_read_as_a_yaml_mapping_is_told_to_quote() -> None:
    text = """schema_version: '1.0'
workflow:
  id: t
  nodes:
    - id: a
      type: transform
      transform: { total: 1 }
    - { id: b, type: transform, transform: [1, 2] }
  edges: [{ from: a, to: b }]
"""
    messages = [d.message for d in analyze(text).diagnostics]
    assert messages == [
        "workflow.nodes[0] (a).transform must be a string (YAML reads a value starting with '{' "
        "as a mapping: write the text as a '|' block scalar or quote it), not a mapping",
        "workflow.nodes[1] (b).transform must be a string (YAML reads a value starting with '[' "
        "as a list: write the text as a '|' block scalar or quote it), not a list",
    ]


def test_an_unclosed_flow_list_is_reported_where_it_opens() -> None:
    text = ("schema_version: '1.0'\nworkflow:\n  id: t\n  nodes: [{ id: a, type: input }]\n"
            "  edges: [{ from: a, to: a }\n")
    [diagnostic] = analyze(text).diagnostics
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (4, 9)
    assert "the flow sequence that starts here is never closed" in diagnostic.message


def test_a_handle_less_edge_out_of_a_branchless_condition_says_what_to_add() -> None:
    text = """schema_version: '1.0'
workflow:
  id: t
  nodes:
    - { id: route, type: condition, expression: '1', branches: [] }
    - { id: done, type: output }
  edges: [{ from: route, to: done }]
"""
    [message] = [d.message for d in analyze(text).diagnostics if d.rule == "invalid-handle"]
    assert message.endswith("(it has no branches yet: add one, then write 'route:<when>')")
