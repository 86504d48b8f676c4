"""Untrusted text never breaks the analysis: fuzzing, hostile YAML, size limits, a large file."""

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.checks.analyze import INTERNAL_ERROR, analyze
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YScalar
from analysis.document.yaml_profile import MAX_SOURCE_BYTES
from analysis.document.yaml_read import read_yaml
from tests.analysis.large_workflow import large_workflow
from tests.conftest import EXAMPLES

WORKFLOW_KEYS = [
    "schema_version", "workflow", "id", "type", "nodes", "edges", "from", "to", "inputs",
    "context", "agents", "name", "key", "value", "expression", "transform", "merge_fn",
    "branches", "when", "target_node", "default", "parallel_of", "merge_strategy",
    "expression_type", "prompt_template", "agent_ref", "save_to", "system_prompt", "$ref",
    "validation", "min", "max", "retry", "gate_type",
]
NODE_TYPES = ["input", "agent", "human_gate", "condition", "transform", "parallel", "merge",
              "output", "bogus"]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
    st.sampled_from([*NODE_TYPES, "a", "b", "a:true", "b:x", "js", "jmespath", "custom"]),
    st.text(max_size=30),
    st.sampled_from([
        'run.outputs["a"]', "{{ inputs.x }}", "{{ ctx.y | json }}", '{{ run.outputs["b"] }}',
        "branches[0]", "x ?? y || z", "({ ...branches[0] })", "`${run.outputs.a}`", "/re/.x",
        "{{ secrets.k }}", "Date.now()", "r\\u0075n.outputs.a", "{{", "}}",
    ]),
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.sampled_from(WORKFLOW_KEYS), children, max_size=6),
    ),
    max_leaves=40,
)


def assert_analyzes(text: str) -> None:
    result = analyze(text)
    assert not [d for d in result.diagnostics if d.rule == INTERNAL_ERROR], result.diagnostics
    for diagnostic in result.diagnostics:
        assert diagnostic.range.start <= diagnostic.range.end
        assert diagnostic.message


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_any_text_never_raises(text: str) -> None:
    assert_analyzes(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS, st.sampled_from([None, "'", '"', "|", ">"]), st.booleans())
def test_any_workflow_shaped_yaml_never_raises(document: object, style: str | None,
                                               flow: bool) -> None:
    text = yaml.safe_dump({"schema_version": "1.0", "workflow": document},
                          default_style=style, default_flow_style=flow, allow_unicode=True)
    assert_analyzes(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.fixed_dictionaries({
    "id": st.sampled_from(["a", "b", "c", "d"]), "type": st.sampled_from(NODE_TYPES),
}, optional={key: SCALARS for key in WORKFLOW_KEYS[12:30]}), max_size=6),
    st.lists(st.fixed_dictionaries({"from": SCALARS, "to": SCALARS}), max_size=6))
def test_any_node_list_never_raises(nodes: list[dict[str, object]],
                                    edges: list[dict[str, object]]) -> None:
    text = yaml.safe_dump({"schema_version": "1.0",
                           "workflow": {"id": "w", "nodes": nodes, "edges": edges}})
    assert_analyzes(text)


EXAMPLE_LINES = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8").split("\n")
# Fragments that break YAML or JavaScript structure in the ways an author's typing does.
FRAGMENTS = ["{{", "}}", "'", '"', ":", "- ", "#", "|", ">-", "\t", "\r", "\ufeff", "é", "😀",
             "[", "]", "{", "}", "&a ", "*a", "!!str ", "\\", 'run.outputs["', "${", "/", "`",
             "\n  ", "~", ": ", ",", "0x", "1e999", "? ", "---\n", "9" * 5000]
MUTATION = st.tuples(
    st.sampled_from(["delete", "duplicate", "insert", "cut", "indent", "swap", "value"]),
    st.integers(0, 10_000), st.integers(0, 10_000), st.sampled_from(FRAGMENTS),
)


def mutate(lines: list[str], operations: list[tuple[str, int, int, str]]) -> str:
    lines = list(lines)
    for operation, first, second, fragment in operations:
        at, other = first % len(lines), second % len(lines)
        column = second % (len(lines[at]) + 1)
        if operation == "delete" and len(lines) > 1:
            del lines[at]
        elif operation == "duplicate":
            lines.insert(at, lines[other])
        elif operation == "insert":
            lines[at] = lines[at][:column] + fragment + lines[at][column:]
        elif operation == "cut":
            lines[at] = lines[at][:column] + lines[at][column + first % 7:]
        elif operation == "indent":
            lines[at] = " " * (first % 5) + lines[at].lstrip(" ")
        elif operation == "swap":
            lines[at], lines[other] = lines[other], lines[at]
        elif operation == "value" and ": " in lines[at]:
            lines[at] = lines[at].split(": ", 1)[0] + ": " + fragment
    return "\n".join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MUTATION, min_size=1, max_size=5), st.booleans())
def test_mutated_example_never_raises(operations: list[tuple[str, int, int, str]],
                                      crlf: bool) -> None:
    text = mutate(EXAMPLE_LINES, operations)
    assert_analyzes(text.replace("\n", "\r\n") if crlf else text)


def test_billion_laughs_is_refused_without_expanding() -> None:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    result = analyze("\n".join(lines) + "\n")
    rules = [d.rule for d in result.diagnostics]
    assert rules.count("yaml-syntax") == 81  # every alias, once (anchors alone are allowed)
    assert "missing-field" in rules


def test_a_thousand_levels_deep_does_not_crash() -> None:
    for text in ("[" * 1000 + "]" * 1000, "".join(f"{'  ' * i}k:\n" for i in range(1000))):
        result = analyze(text)
        assert result.diagnostics  # refused by libyaml's depth limit, or not a workflow


def test_over_two_mebibytes_is_refused() -> None:
    for text in ("#" * (MAX_SOURCE_BYTES + 1), "#é" * (MAX_SOURCE_BYTES // 3 + 1)):
        result = analyze(text)
        [diagnostic] = result.diagnostics
        assert diagnostic.rule == "yaml-syntax" and "2 MiB" in diagnostic.message
        assert result.workflow is None
    assert analyze("#" * MAX_SOURCE_BYTES).workflow is not None


def test_empty_file_asks_for_the_top_level_fields() -> None:
    [diagnostic] = analyze("").diagnostics
    assert diagnostic.rule == "missing-field"


def test_generated_thousand_node_workflow_is_clean_and_fully_ordered() -> None:
    result = analyze(large_workflow(100))
    # its only fault: past the engine's 500-node admission ceiling (ADR-0086 §2)
    assert [(d.rule, d.data) for d in result.diagnostics] == [
        ("admission-limit", {"ceiling": 500, "count": 1001})]
    assert result.workflow is not None and result.graph is not None
    assert len(result.workflow.nodes) == 1001
    assert result.graph.cycle is None
    assert len(result.graph.ancestors("b99-pass")) == 1000
    assert result.graph.fan_in_branches("b42-join") == ["b42-left", "b42-right"]


def test_huge_integers_are_javascript_numbers_and_never_raise() -> None:
    # Python refuses int() of >4,300 digits; JavaScript reads any of these as a double.
    for digits in ("9" * 5000, "0" * 5000 + "7", "0x" + "f" * 5000, "0o" + "7" * 5000,
                   "9007199254740993"):
        text = f"""schema_version: '1.0'
workflow:
  id: big
  timeout_ms: {digits}
  inputs: [{{ name: n, type: number, validation: {{ min: {digits}, max: 1 }} }}]
  nodes:
    - id: route
      type: condition
      expression: '1'
      branches: [{{ when: {digits}, target_node: done }}]
    - {{ id: done, type: output }}
  edges: [{{ from: 'route:{digits}', to: done }}]
"""
        assert_analyzes(text)
    scalar = read_yaml(SourceText("9007199254740993")).root
    assert isinstance(scalar, YScalar) and scalar.value == 2**53  # JavaScript's rounding
