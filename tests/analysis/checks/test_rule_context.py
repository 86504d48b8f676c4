"""The facts `RuleContext` derives once per analysis for the rules that share them: each equals
what a rule used to derive for itself by walking the whole model, on the fixtures, the examples,
a generated workflow and random ones (issue 12: the rule loop's cost)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.checks.context import RuleContext
from analysis.checks.expression_sites import MAX_EXPRESSION_CHARS
from analysis.document.graph import build_graph
from analysis.document.model_build import build_workflow
from analysis.document.source import SourceText
from analysis.document.yaml_read import read_yaml
from tests.analysis.large_workflow import large_workflow
from tests.conftest import EXAMPLES, FIXTURES


def context(text: str) -> RuleContext:
    source = SourceText(text)
    document = read_yaml(source)
    workflow = build_workflow(document)
    return RuleContext(source, document, workflow, build_graph(workflow))


def assert_facts_as_derived_by_walking(ctx: RuleContext) -> None:
    workflow = ctx.workflow
    nodes = workflow.nodes_by_id

    node_types = {node.type for node in workflow.nodes}
    assert ctx.nodes_by_type == {
        kind: [node for node in workflow.nodes if node.type == kind] for kind in node_types}
    assert ctx.nodes_of("no-such-type") == []

    sourced = [(edge, nodes[edge.source or ""]) for edge in workflow.edges
               if (edge.source or "") in nodes]
    assert ctx.edges_by_source_type == {
        kind: [(edge, node) for edge, node in sourced if node.type == kind]
        for kind in {node.type for _, node in sourced}}
    assert ctx.condition_edges == [
        (edge, node, node.branch_for(edge.handle) if edge.handle is not None else None)
        for edge, node in sourced if node.type == "condition"]

    assert [(site.field, site.ref, site.owner) for site in ctx.template_sites] == [
        (field, ref, field.owner) for field in workflow.template_fields()
        for ref in field.references]

    assert [(site.field, site.node) for site in ctx.expression_sites] == [
        (field, field.node) for field in workflow.expression_fields()
        if (field.node.type != "merge" or field.node.merge_strategy == "custom")
        and len(field.value) <= MAX_EXPRESSION_CHARS]


def corpus() -> list[Path]:
    return sorted([*FIXTURES.rglob("*.yaml"), *EXAMPLES.rglob("*.yaml")])


@pytest.mark.parametrize("path", corpus(), ids=lambda path: path.name)
def test_facts_on_fixtures_and_examples(path: Path) -> None:
    assert_facts_as_derived_by_walking(context(path.read_text(encoding="utf-8")))


def test_facts_on_a_generated_workflow() -> None:
    ctx = context(large_workflow(5))
    assert_facts_as_derived_by_walking(ctx)
    assert len(ctx.nodes_of("condition")) == 5
    assert len(ctx.condition_edges) == 10  # two handle edges per block, both naming a branch
    assert all(branch is not None for _, _, branch in ctx.condition_edges)


WHENS = st.one_of(st.booleans(), st.integers(-2, 2), st.sampled_from([1.0, 0.5, "1", "01", "a",
                                                                      "true", "", " 1", None]))
IDS = st.sampled_from(["a", "b", "c", ""])
HANDLES = st.sampled_from(["", ":", ":1", ":01", ":a", ":true", ":0x1", ":1.0", ": 1", ":x"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.fixed_dictionaries(
        {"id": IDS, "type": st.sampled_from(["condition", "parallel", "transform", "merge",
                                             "agent", "input", None])},
        optional={
            "branches": st.lists(st.fixed_dictionaries(
                {}, optional={"when": WHENS, "target_node": IDS}), max_size=4),
            "parallel_of": st.lists(IDS, max_size=3),
            "merge_strategy": st.sampled_from(["custom", "concat"]),
            "merge_fn": st.sampled_from(["branches[0]", "{{ x }}"]),
            "transform": st.sampled_from(["run.outputs.a", "x"]),
            "prompt_template": st.sampled_from(["{{ inputs.q }} {{ ctx.k }}", "plain"]),
        }), max_size=6),
    st.lists(st.tuples(IDS, HANDLES, IDS), max_size=8),
)
def test_facts_on_random_workflows(nodes: list[dict[str, Any]],
                                   edges: list[tuple[str, str, str]]) -> None:
    text = yaml.safe_dump({"schema_version": "1.0", "workflow": {
        "id": "w", "nodes": nodes,
        "edges": [{"from": source + handle, "to": target} for source, handle, target in edges],
    }})
    assert_facts_as_derived_by_walking(context(text))


CLOSE_WHENS = st.sampled_from([1, 1.0, 2, "1", "01", "a", True, "true", None])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(CLOSE_WHENS, max_size=4), min_size=1, max_size=2),
    st.lists(st.tuples(st.integers(0, 1), st.sampled_from(
        ["", ":1", ":01", ":1.0", ":2", ":a", ":true", ":0x1", ": 1", ":x"])), max_size=8),
)
def test_condition_edges_on_random_branches(whens: list[list[object]],
                                            edges: list[tuple[int, str]]) -> None:
    """Branches whose `when`s spell the same handle, or answer another's spelling as numbers."""
    text = yaml.safe_dump({"schema_version": "1.0", "workflow": {
        "id": "w",
        "nodes": [{"id": f"c{index}", "type": "condition",
                   "branches": [{"when": when, "target_node": "x"} for when in node_whens]}
                  for index, node_whens in enumerate(whens)],
        "edges": [{"from": f"c{index}{handle}", "to": "x"} for index, handle in edges],
    }})
    assert_facts_as_derived_by_walking(context(text))


def test_an_edge_names_the_first_branch_that_answers_its_handle() -> None:
    """`when: 1` answers `:01` (Number("01") is 1) before a later `when: "01"` does."""
    ctx = context("""\
workflow:
  nodes:
    - id: c
      type: condition
      branches:
        - { when: 1, target_node: x }
        - { when: "01", target_node: y }
  edges:
    - { from: 'c:01', to: x }
    - { from: 'c:2', to: x }
    - { from: c, to: y }
""")
    [(_, _, first), (_, _, none), (_, _, handle_less)] = ctx.condition_edges
    assert first is not None and first.index == 0
    assert none is None and handle_less is None


def test_a_shared_fact_is_derived_once_per_analysis() -> None:
    asked: list[RuleContext] = []

    def node_count(ctx: RuleContext) -> int:
        asked.append(ctx)
        return len(ctx.workflow.nodes)

    first, second = context(large_workflow(1)), context(large_workflow(2))
    assert [first.shared(node_count), first.shared(node_count), second.shared(node_count)] == [
        11, 11, 21]
    assert asked == [first, second]
