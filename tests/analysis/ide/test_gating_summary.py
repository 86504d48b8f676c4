"""The hover's line on branch gating: which condition branches gate a node, and the leak."""

from analysis.checks.analyze import analyze
from analysis.document.graph import Graph
from analysis.ide.describe import gating_summary
from tests.conftest import EXAMPLES, FIXTURES


def graph_of(text: str) -> Graph:
    result = analyze(text, "w.relavium.yaml")
    assert result.graph is not None
    return result.graph


def test_the_examples_gate_is_gated_by_its_branch() -> None:
    graph = graph_of((EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8"))
    assert gating_summary(graph, "escalate") == "gated by `route:urgent`"
    assert gating_summary(graph, "history") == "gated by `route:normal|default`"
    assert gating_summary(graph, "done") is None  # both branches lead to it
    assert gating_summary(graph, "classify") is None


def test_a_leaked_node_says_it_runs_anyway_and_nested_gates_are_all_named() -> None:
    text = (FIXTURES / "rules" / "leaked-branch" / "positive-nested.relavium.yaml").read_text(
        encoding="utf-8")
    assert gating_summary(graph_of(text), "confirm") == (
        "gated by `outer:yes`, `inner:a` · ⚠ runs also when `inner` chooses another branch "
        "(leaked-branch)")
