"""An incremental analysis takes over the previous version's expression types
(`analysis.types.dataflow.TypesMemo`) only where what they are derived from is unchanged: each
edit below changes a type several nodes downstream of it (a producer's `output_schema`, an
input's declared type, an upstream expression, a merge's branches), and the analysis built on the
previous version finds exactly what a fresh analysis of the edited text finds."""

from __future__ import annotations

import pytest

from analysis.checks.analyze import AnalysisResult, analyze

TYPED_RULES = frozenset({"unknown-output-property", "read-of-absent-value",
                         "impossible-branch-value", "template-filter-type"})

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: reuse
  inputs:
    - { name: count, type: number, required: true }
  agents:
    - { id: triager, model: claude-sonnet-4, provider: anthropic, system_prompt: Classify. }
  nodes:
    - id: classify
      type: agent
      agent_ref: triager
      prompt_template: Classify the ticket.
      output_schema:
        type: object
        additionalProperties: false
        required: [topic]
        properties:
          topic: { type: string }
    - id: shape
      type: transform
      transform: '({ label: run.outputs.classify.topic, n: inputs.count })'
    - id: relay
      type: transform
      transform: 'run.outputs.shape'
    - id: use
      type: transform
      transform: '[run.outputs.relay.label.length, run.outputs.relay.n.size]'
    - id: route
      type: condition
      expression: 'run.outputs.relay.label'
      branches:
        - { when: 'billing', target_node: use }
  edges:
    - { from: classify, to: shape }
    - { from: shape, to: relay }
    - { from: relay, to: route }
"""

EDITS = [
    # the producer's schema: `topic` no longer declared, so `label` is absent two nodes on
    ("required: [topic]\n        properties:\n          topic:",
     "properties:\n          other:"),
    ("topic: { type: string }", "topic: { type: number }"),
    # the producer's schema: a closed enum, so `route`'s `when` can never match
    ("topic: { type: string }", "topic: { type: string, enum: [sales] }"),
    # an input's declared type: `n` is text now, which has no `size`
    ("type: number, required: true", "type: string, required: true"),
    # an upstream expression: the property renamed
    ("({ label:", "({ tag:"),
    ("run.outputs.shape'", "run.outputs.shape.label'"),
]


def _typed(result: AnalysisResult) -> list[tuple[str, str]]:
    return [(d.rule, d.message) for d in result.diagnostics if d.rule in TYPED_RULES]


def _everything(result: AnalysisResult) -> list[tuple[object, ...]]:
    return [(d.range, d.severity, d.rule, d.message) for d in result.diagnostics]


@pytest.mark.parametrize(("old", "new"), EDITS)
@pytest.mark.parametrize("take_over", [False, True])
def test_an_edit_upstream_changes_the_types_downstream(old: str, new: str,
                                                       take_over: bool) -> None:
    assert old in WORKFLOW
    edited = WORKFLOW.replace(old, new, 1)
    before = analyze(WORKFLOW)
    fresh = analyze(edited)
    # the edit changes what the typed checks find, so a type taken over stale would show
    assert _typed(fresh) != _typed(before)
    incremental = analyze(edited, previous=before, take_over=take_over)
    assert _everything(incremental) == _everything(fresh)
    # and back again, built on the edited version
    restored = analyze(WORKFLOW, previous=incremental)
    assert _everything(restored) == _everything(before)


def test_a_chain_of_versions_matches_fresh_analyses() -> None:
    previous = analyze(WORKFLOW)
    text = WORKFLOW
    for old, new in EDITS:
        text = text.replace(old, new, 1) if old in text else text
        previous = analyze(text, previous=previous)
        assert _everything(previous) == _everything(analyze(text))


def test_the_unchanged_expressions_types_are_taken_over() -> None:
    before = analyze(WORKFLOW)
    after = analyze(WORKFLOW.replace("prompt_template: Classify the ticket.",
                                     "prompt_template: Classify the ticket again."),
                    previous=before)
    assert before.types_memo is not None and after.types_memo is not None
    kept = before.types_memo.expressions
    assert set(after.types_memo.expressions) == set(kept)
    assert all(types is kept[node][1]
               for node, (_, types) in after.types_memo.expressions.items())
