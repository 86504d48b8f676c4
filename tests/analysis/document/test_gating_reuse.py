"""An incremental analysis takes the previous version's branch gates over
(`analysis.document.gating.GatingMemo`) only while everything they follow from is unchanged: each
shape edit below (a branch's `when` or target, a default, a read, an explicit edge, a node's id,
type or place) changes the leaked-branch findings, and the analysis built on the previous version
finds exactly what a fresh analysis of the edited text finds; an edit inside an expression keeps
the gates, and their findings move with the text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.checks.analyze import AnalysisResult, analyze
from analysis.ide.describe import gating_summary
from analysis.ide.workflow_graph import result_graph

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: gating-reuse
  nodes:
    - { id: start, type: input }
    - { id: fetch, type: transform, transform: '({ ready: true })' }
    - id: outer
      type: condition
      expression: '"yes"'
      branches:
        - { when: 'yes', target_node: prepare }
      default: skip
    - { id: prepare, type: transform, transform: '({ ready: true })' }
    - id: inner
      type: condition
      expression: '"b"'
      branches:
        - { when: a, target_node: confirm }
        - { when: b, target_node: other }
    - id: confirm
      type: human_gate
      gate_type: approval
      message_template: 'Ready: {{ run.outputs["prepare"].ready }} {{ run.outputs["fetch"].ready }}'
    - { id: other, type: transform, transform: '1' }
    - { id: skip, type: transform, transform: '0' }
  edges:
    - { from: start, to: fetch }
    - { from: fetch, to: outer }
    - { from: 'outer:yes', to: prepare }
    - { from: prepare, to: inner }
    - { from: 'inner:a', to: confirm }
    - { from: 'inner:b', to: other }
    - { from: start, to: skip }
  timeout_ms: 86400000
"""

# each changes what the gates follow from, and so the leaked-branch findings
SHAPE_EDITS = [
    ("{ when: a, target_node: confirm }", "{ when: c, target_node: confirm }"),
    ("{ when: b, target_node: other }", "{ when: b, target_node: confirm }"),
    ("default: skip", "default: other"),
    (' {{ run.outputs["fetch"].ready }}', ""),
    ("    - { from: start, to: skip }\n", ""),
    ("{ id: fetch, type: transform,", "{ id: fetched, type: transform,"),
    ("{ id: skip, type: transform, transform: '0' }",
     "{ id: skip, type: condition, expression: '0', branches: [{ when: 0, target_node: other }] }"),
    ("    - { from: start, to: fetch }\n    - { from: fetch, to: outer }\n",
     "    - { from: start, to: outer }\n"),
]
# each leaves the gates as they were
KEYSTROKES = [
    ("expression: '\"b\"'", "expression: '\"a\"'"),
    ("{ id: fetch, type: transform, transform: '({ ready: true })' }",
     "{ id: fetch, type: transform,\n        transform: '({ ready: false })' }"),
    ("Ready: {{", "Ready to go: {{"),
]
EDITS = SHAPE_EDITS + KEYSTROKES


def _everything(result: AnalysisResult) -> list[tuple[object, ...]]:
    return [(d.range, d.severity, d.rule, d.message, d.data, d.related)
            for d in result.diagnostics]


def _leaks(result: AnalysisResult) -> list[tuple[object, ...]]:
    return [entry for entry in _everything(result) if entry[2] == "leaked-branch"]


def test_the_workflow_leaks_through_a_read_an_edge_and_a_nested_branch() -> None:
    found = _leaks(analyze(WORKFLOW))
    assert len(found) == 3
    assert any(entry[4]["enclosing"] for entry in found)  # type: ignore[index]


@pytest.mark.parametrize(("old", "new"), SHAPE_EDITS)
@pytest.mark.parametrize("take_over", [False, True])
def test_a_shape_edit_derives_the_gates_again(old: str, new: str, take_over: bool) -> None:
    assert old in WORKFLOW
    before = analyze(WORKFLOW)
    edited = WORKFLOW.replace(old, new, 1)
    fresh = analyze(edited)
    assert _leaks(fresh) != _leaks(before)  # so a stale gate would show
    incremental = analyze(edited, previous=before, take_over=take_over)
    assert _everything(incremental) == _everything(fresh)
    assert incremental.gating_memo is not before.gating_memo
    restored = analyze(WORKFLOW, previous=incremental, take_over=take_over)
    assert _everything(restored) == _everything(before)


@pytest.mark.parametrize(("old", "new"), KEYSTROKES)
@pytest.mark.parametrize("take_over", [False, True])
def test_a_keystroke_takes_the_gates_over_at_the_new_ranges(old: str, new: str,
                                                            take_over: bool) -> None:
    assert old in WORKFLOW
    before = analyze(WORKFLOW)
    edited = WORKFLOW.replace(old, new, 1)
    incremental = analyze(edited, previous=before, take_over=take_over)
    assert before.gating_memo is not None
    assert incremental.gating_memo is before.gating_memo
    assert _everything(incremental) == _everything(analyze(edited))


def test_a_line_inserted_above_moves_the_findings_and_their_branches() -> None:
    old, new = KEYSTROKES[1]
    before = analyze(WORKFLOW)
    after = analyze(WORKFLOW.replace(old, new, 1), previous=before, take_over=True)
    moved = [(d.range.start.line, [r.range.start.line for r in d.related])
             for d in after.diagnostics if d.rule == "leaked-branch"]
    was = [(d.range.start.line, [r.range.start.line for r in d.related])
           for d in before.diagnostics if d.rule == "leaked-branch"]
    assert moved == [(line + 1, [r + 1 for r in related]) for line, related in was]


@pytest.mark.parametrize(("old", "new"), EDITS)
def test_the_graph_view_and_hover_show_a_fresh_analysiss_gates(old: str, new: str) -> None:
    edited = WORKFLOW.replace(old, new, 1)
    incremental = analyze(edited, previous=analyze(WORKFLOW), take_over=True)
    fresh = analyze(edited)
    assert result_graph(incremental).to_json() == result_graph(fresh).to_json()
    assert incremental.graph is not None and fresh.graph is not None
    assert [gating_summary(incremental.graph, node, incremental.branch_gates())
            for node in incremental.graph.node_ids] == [
        gating_summary(fresh.graph, node) for node in fresh.graph.node_ids]


def test_a_file_that_does_not_read_keeps_the_gates_for_the_next() -> None:
    before = analyze(WORKFLOW)
    broken = analyze(WORKFLOW + "  nodes: [\n", previous=before)
    assert broken.workflow is None and broken.gating_memo is before.gating_memo


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(range(len(EDITS))), st.booleans(), st.booleans()),
                min_size=1, max_size=8))
def test_random_edit_sequences_match_fresh_analyses(steps: list[tuple[int, bool, bool]]) -> None:
    texts = [WORKFLOW]
    for which, undo, _ in steps:
        old, new = EDITS[which][::-1] if undo else EDITS[which]
        # an edit whose text is not there (yet) leaves the version as it was
        texts.append(texts[-1].replace(old, new, 1))
    previous = analyze(WORKFLOW)
    for text, (_, _, take_over) in zip(texts[1:], steps, strict=True):
        previous = analyze(text, previous=previous, take_over=take_over)
        assert _everything(previous) == _everything(analyze(text))
