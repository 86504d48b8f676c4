"""Condition handles as the engine matches them (packages/core/src/dag.ts validateHandle): the
exact String(when), or for a numeric `when` any non-blank handle whose Number(handle) equals it.
Every JavaScript expectation below was checked with `node -e 'console.log(Number(s))'` /
`String(v)` (Node 22)."""

import math

import pytest

from analysis.checks.analyze import analyze
from analysis.ide.navigation import SymbolKind, symbol_index
from analysis.naming import js_number, js_string
from tests.operations import lines_executed

# (text, JavaScript's Number(text)); "-0" stands for negative zero.
NUMBER_CASES = [
    ("0x10", 16), ("0X10", 16), ("0o17", 15), ("0O17", 15), ("0b101", 5), ("0B1", 1),
    ("0x1F", 31), ("-0x10", math.nan), ("+0x10", math.nan), ("0x", math.nan), ("0b2", math.nan),
    ("0xg", math.nan), ("0o8", math.nan), ("1_000", math.nan), ("1n", math.nan),
    ("1e", math.nan), ("1.", 1), ("1.e5", 100000), (".e5", math.nan), (".5", 0.5),
    (".", math.nan), ("+.5", 0.5), ("0.1e1", 1), ("1E+2", 100), ("1e-7", 1e-7),
    ("00012", 12), ("0012.5", 12.5), ("-0", "-0"), ("+0", 0),
    ("Infinity", math.inf), ("+Infinity", math.inf), ("-Infinity", -math.inf),
    ("infinity", math.nan), ("inf", math.nan), ("nan", math.nan), ("NaN", math.nan),
    ("1e400", math.inf), ("-1e400", -math.inf), ("5e-324", 5e-324), ("2e-324", 0),
    ("1.7976931348623159e308", math.inf), ("0x" + "f" * 300, math.inf),
    ("", 0), (" ", 0), ("\t\n 7 \r\v\f", 7),
    # Unicode whitespace JavaScript trims (Zs, LS, PS, BOM) ...
    ("\u00a01\u3000", 1), ("\u20281\u2029", 1), ("\ufeff1\u202f", 1), ("\u16801\u205f", 1),
    ("\u20001\u200a", 1),
    # ... and what it does not (Python's str.strip() would): U+0085, U+001C, U+180E, U+200B.
    ("\x851", math.nan), ("\x1c1", math.nan), ("\u180e1", math.nan), ("1\u200b", math.nan),
    ("١", math.nan),  # an Arabic-Indic digit is not a JavaScript digit
]


@pytest.mark.parametrize(("text", "expected"), NUMBER_CASES)
def test_js_number_reads_a_string_as_javascript_does(text: str, expected: object) -> None:
    value = js_number(text)
    if expected == "-0":
        assert value == 0 and math.copysign(1, value) < 0
    elif isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(value)
    else:
        assert value == expected
        assert value != 0 or math.copysign(1, value) > 0  # +0, not -0


@pytest.mark.parametrize(("value", "expected"), [
    (1e21, "1e+21"), (1e20, "100000000000000000000"), (0.1, "0.1"), (-0.0, "0"),
    (1e-7, "1e-7"), (1e-6, "0.000001"), (123456789012345680000, "123456789012345680000"),
    (2**53 + 2, "9007199254740994"), (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e+308"), (1.5e300, "1.5e+300"),
    (math.inf, "Infinity"), (True, "true"), (None, "null"),
])
def test_js_string_writes_a_value_as_javascript_does(value: object, expected: str) -> None:
    assert js_string(value) == expected


def workflow(branches: str, edges: str) -> str:
    return f"""schema_version: '1.0'
workflow:
  id: handles
  nodes:
    - {{ id: start, type: input }}
    - id: gate
      type: condition
      expression: 'inputs.n'
      branches:
{branches}
      default: c
    - {{ id: a, type: output }}
    - {{ id: b, type: output }}
    - {{ id: c, type: output }}
  edges:
    - {{ from: start, to: gate }}
{edges}
"""


def findings(text: str) -> list[tuple[str, str]]:
    result = analyze(text)
    return [(d.rule, result.source.text[result.source.offset(d.range.start):
                                        result.source.offset(d.range.end)])
            for d in result.diagnostics if d.rule != "unreachable-node"]  # node b, mostly


@pytest.mark.parametrize(("when", "handle"), [
    ("1", "1.0"), ("1", "01"), ("1", "1e0"), ("1", " 1"), ("1", "0x1"), ("1", "0b1"),
    ("16", "0x10"), ("0.1", ".1"), ("1e21", "1e21"), ("1e21", "1e+21"), ("-0.0", "0"),
    ("0", "-0"), (".inf", "Infinity"), ("-.inf", "-Infinity"), ("8", "0o10"),
    ("0x10", "16"), ("1", "\u00a01\u3000"),
])
def test_a_numeric_when_answers_every_spelling_of_its_number(when: str, handle: str) -> None:
    text = workflow(f"        - {{ when: {when}, target_node: a }}",
                    f"    - {{ from: 'gate:{handle}', to: a }}")
    assert findings(text) == []


@pytest.mark.parametrize(("when", "handle"), [
    ("'1'", "1.0"),     # a string when matches only its exact text
    ("'1'", " 1"),
    ("true", "1"),      # a boolean is not a number
    ("0", " "),         # a blank handle is never a number (Number(" ") is 0)
    ("1", "1_0"),
    ("1", "\u180e1"),   # U+180E is not JavaScript whitespace
    ("1", "+0x1"),
    ("1", "1n"),
])
def test_a_handle_no_branch_answers_is_refused(when: str, handle: str) -> None:
    text = workflow(f"        - {{ when: {when}, target_node: a }}",
                    f"    - {{ from: 'gate:{handle}', to: a }}")
    assert findings(text) == [("invalid-handle", handle)]


def test_default_is_not_a_handle_even_when_the_condition_has_one() -> None:
    text = workflow("        - { when: true, target_node: a }",
                    "    - { from: 'gate:true', to: a }\n    - { from: 'gate:default', to: c }")
    assert findings(text) == [("invalid-handle", "default")]
    assert any("'default' is not a handle" in d.message for d in analyze(text).diagnostics)
    # A branch whose when is the string 'default' does answer it.
    text = workflow("        - { when: default, target_node: a }",
                    "    - { from: 'gate:default', to: a }")
    assert findings(text) == []


def test_the_first_branch_a_handle_answers_decides_its_target() -> None:
    # `gate:1.0` answers `when: 1` (first), so its edge must go where that branch goes.
    branches = "        - { when: 1, target_node: a }\n        - { when: '1.0', target_node: b }"
    assert findings(workflow(branches, "    - { from: 'gate:1.0', to: b }")) == [
        ("mismatched-branch-target", "b")]
    assert findings(workflow(branches, "    - { from: 'gate:1.0', to: a }")) == []


def test_an_alias_handle_navigates_to_its_branch() -> None:
    text = workflow("        - { when: 1, target_node: a }", "    - { from: 'gate:0x1', to: a }")
    result = analyze(text)
    assert result.workflow is not None
    index = symbol_index(result.workflow)
    used = index.at(text.index("gate:0x1") + 6)
    assert used is not None and used.kind is SymbolKind.HANDLE and used.name == "gate:1"
    declared = index.definition(SymbolKind.HANDLE, "gate:1")
    assert declared is not None and text[declared.start:declared.end] == "1"


def test_a_condition_with_many_branches_and_edges_costs_linear_work() -> None:
    """Each edge's handle is looked up, not matched against every branch in turn (1,000
    branches with an edge each cost 82x the work of 100; issue 12: no quadratic scan). Valid
    handles, some spelled as numeric aliases, and one unknown handle per size."""
    def cost(count: int) -> int:
        branches = "\n".join(f"        - {{ when: {i}, target_node: a }}" for i in range(count))
        edges = "\n".join(f"    - {{ from: 'gate:{hex(i) if i % 2 else i}', to: a }}"
                          for i in range(count)) + "\n    - { from: 'gate:nope', to: a }"
        text = workflow(branches, edges)
        # past 2,000 edges counting the branches, the engine refuses the file (ADR-0086 §2)
        over = ["admission-limit"] if 2 * count + 1 > 2000 else []
        assert [rule for rule, _ in findings(text)] == [*over, "invalid-handle"]
        return lines_executed(lambda: analyze(text), "analysis")

    small, large = cost(100), cost(1000)
    assert large <= small * 12, (small, large)
