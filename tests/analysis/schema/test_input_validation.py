"""An input's `validation` block is checked by the input's type, as the engine checks it."""

from analysis.checks.analyze import analyze


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


def test_a_default_may_not_interpolate() -> None:
    text = """schema_version: '1.0'
workflow:
  id: defaults
  inputs:
    - { name: team, type: string, default: support }
    - { name: owner, type: string, default: '{{ inputs.team }}-lead' }
  nodes: [{ id: start, type: input }]
  edges: []
"""
    result = analyze(text)
    [diagnostic] = result.diagnostics
    assert diagnostic.rule == "invalid-value"
    assert diagnostic.message.startswith(
        "workflow.inputs[1] (owner).default may not use {{ }}")
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (5, 44)


def test_a_key_of_the_other_input_kind_is_explained_not_unknown() -> None:
    text = """schema_version: '1.0'
workflow:
  id: kinds
  inputs:
    - { name: age, type: number, validation: { min_length: 1 } }
    - { name: title, type: string, validation: { max: 80 } }
  nodes: [{ id: start, type: input }]
  edges: []
"""
    assert [d.message for d in analyze(text).diagnostics] == [
        "workflow.inputs[0] (age).validation: 'min_length' applies to string-like inputs, not "
        "to number ones; number inputs take min, max, enum",
        "workflow.inputs[1] (title).validation: 'max' applies to number inputs, not to string "
        "ones; string inputs take format, pattern, enum, min_length, max_length",
    ]


def test_a_pattern_must_compile_as_a_javascript_regular_expression() -> None:
    template = """schema_version: '1.0'
workflow:
  id: patterns
  inputs:
    - {{ name: email, type: string, validation: {{ pattern: {pattern} }} }}
  nodes: [{{ id: start, type: input }}]
  edges: []
"""
    # Valid in JavaScript (no flags), whatever Python's `re` thinks of `\\p{L}` or `(?<y>…)\\k<y>`.
    for pattern in (r"'^[a-z]+@x\.com$'", "'a/b'", r"'\p{L}+'", r"'(?<y>\d{4})-\k<y>'",
                    "'[/]'"):
        assert analyze(template.format(pattern=pattern)).diagnostics == [], pattern
    for pattern, problem in (("'(a'", "expecting ')'"), ("'[z-a]'", "invalid class range"),
                             ("'a{2,1}'", "invalid repetition count"),
                             ("'x\\'", "escapes nothing"), (f"'{'a' * 513}'", "at most 512")):
        [diagnostic] = analyze(template.format(pattern=pattern)).diagnostics
        assert diagnostic.rule == "invalid-value", pattern
        assert diagnostic.message.startswith("workflow.inputs[0] (email).validation.pattern")
        assert problem in diagnostic.message, pattern


def test_hover_and_completion_read_the_validation_keys_validation_checks() -> None:
    """The input's `type` chooses its `validation` keys the same way for the walk and for the
    lookups (hover, completion): absent or null → a string's, an input type → its own, any other
    value → none (the walk checks nothing there, and the lookups offer nothing)."""
    from analysis.document.source import SourceText
    from analysis.document.yaml_read import read_yaml
    from analysis.schema.lookups import child
    from analysis.schema.workflow import INPUT, VALIDATION_BY_TYPE

    for kind, expected in (("", "string"), ("type: ~,", "string"), ("type: number,", "number"),
                           ("type: strin,", None), ("type: 3,", None)):
        text = f"{{ name: x, {kind} validation: {{ pattern: '(', min: 2, max: 1 }} }}"
        mapping = read_yaml(SourceText(text)).root
        assert child(INPUT, "validation", mapping) is (
            VALIDATION_BY_TYPE[expected] if expected else None), kind
        workflow = ("schema_version: '1.0'\nworkflow:\n  id: v\n  inputs: [" + text + "]\n"
                    "  nodes: [{ id: start, type: input }]\n  edges: []\n")
        checked = [d.rule for d in analyze(workflow).diagnostics if ".validation" in d.message]
        assert checked == ({"string": ["invalid-value", "unknown-key", "unknown-key"],
                            "number": ["unknown-key", "invalid-value"]}.get(expected or "", [])
                           ), kind


def _default_findings(*inputs: str) -> list[tuple[str, str]]:
    text = ("schema_version: '1.0'\nworkflow:\n  id: defaults\n  inputs:\n"
            + "".join(f"    - {line}\n" for line in inputs)
            + "  nodes: [{ id: start, type: input }]\n  edges: []\n")
    result = analyze(text)
    return [(d.rule, d.message) for d in result.diagnostics]


def test_only_a_terminated_pair_is_interpolation() -> None:
    """The newest `packages/shared/src/workflow.ts` (INTERPOLATION_PAIR, ADR-0083 §3 as amended):
    a lone `{{` is literal text to the engine's lexer and loads; a pair anywhere in a nested
    default is refused (containsInterpolation)."""
    assert _default_findings("{ name: a, type: string, default: 'use {{ to open' }",
                             "{ name: b, type: string, default: 'a }} then {{' }") == []
    found = _default_findings("{ name: c, type: string, default: { k: ['{{ ctx.x }}'] } }")
    assert [message.split(": ")[0] for _, message in found] == [
        "workflow.inputs[0] (c).default is a mapping, but a string input takes a string",
        "workflow.inputs[0] (c).default may not use {{ }}",
    ]


def test_a_default_must_satisfy_its_own_contract() -> None:
    """violatesInputContract on the declared default (the newest workflow.ts, step 4 of
    WorkflowInputSchema): type, enum (Object.is), min/max, UTF-16 length, format, pattern."""
    refused = [
        "{ name: a, type: number, default: '3' }",
        "{ name: b, type: number, default: .nan }",
        "{ name: c, type: boolean, default: ~ }",
        "{ name: d, type: number, default: -0.0, validation: { enum: [0] } }",
        "{ name: e, type: number, default: 0, validation: { min: 1 } }",
        "{ name: f, type: string, default: '😀😀', validation: { max_length: 3 } }",
        "{ name: g, type: string, default: 'a@b', validation: { format: email } }",
        "{ name: h, type: string, default: \"a\\ufeff@b.co\", validation: { format: email } }",
        "{ name: i, type: string, default: 'ab1', validation: { pattern: '[a-z]+' } }",
        "{ name: j, type: string, default: 'HTTP:x', validation: { format: uuid } }",
    ]
    found = _default_findings(*refused)
    assert [message.split(" ")[0] for _, message in found] == [
        f"workflow.inputs[{index}]" for index in range(len(refused))]
    assert all(rule == "invalid-value" for rule, _ in found)


def test_a_default_that_satisfies_its_contract_loads() -> None:
    assert _default_findings(
        "{ name: a, type: number, default: 1e3, validation: { min: 1, max: 1000 } }",
        "{ name: b, type: string, default: '😀', validation: { min_length: 2, max_length: 2 } }",
        "{ name: c, type: string, default: 'a\\u00fc@b.co', validation: { format: email } }",
        # JavaScript's \s has U+FEFF (refused above) but not U+0085, which Python's has
        "{ name: h, type: string, default: \"a\\x85@b.co\", validation: { format: email } }",
        "{ name: d, type: string, default: 'mailto:x', validation: { format: uri } }",
        "{ name: e, type: string, default: 'A1', validation: { pattern: '[A-Z][0-9]' } }",
        # outside the pattern subset read the same in Python: not judged
        "{ name: f, type: string, default: 'x', validation: { pattern: '(a+)+b' } }",
        "{ name: g, type: string, default: 'x', validation: { pattern: '\\\\d' } }",
    ) == []


def test_a_secret_input_may_not_have_an_enum() -> None:
    """ADR-0083 §6 as amended 2026-08-19; the newest workflow.ts VALIDATION_KEYS_BY_TYPE."""
    [(rule, message)] = _default_findings(
        "{ name: token, type: secret, validation: { enum: [a], pattern: '[a-z]+' } }")
    assert rule == "unknown-key" and "a secret input may not have 'enum'" in message
