"""An incremental analysis takes over a node's derived output (`TypesMemo.outputs`) only when the
node's own text, the ids it reads, the graph's shape and every producer's output are the previous
version's. Each edit below is of a kind that could leave a stale output behind (a producer's
`output_schema`, an agent file's schema, an input's type, an upstream expression, a node id, an
edge, a line inserted above the sites); after every edit the incremental analysis finds exactly
what a fresh analysis of the same text finds, ranges included, and a Hypothesis test does the
same over random sequences of those edits."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.checks.analyze import AnalysisResult, analyze
from analysis.checks.typed_reads import KeptSite
from analysis.project.workspace import WorkspaceIndex

TYPED_RULES = frozenset({"unknown-output-property", "read-of-absent-value",
                         "impossible-branch-value", "template-filter-type"})

AGENT = """id: reviewer
model: claude-sonnet-4-5
provider: anthropic
system_prompt: You review.
output_schema:
  type: object
  additionalProperties: false
  required: [verdict]
  properties:
    verdict: { type: string }
"""
OTHER_AGENT = AGENT.replace("verdict", "score").replace("{ type: string }", "{ type: number }")

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: takeover
  inputs:
    - { name: count, type: number, required: true }
  nodes:
    - { id: start, type: input }
    - id: review
      type: agent
      agent_ref: reviewer
      prompt_template: Review.
    - id: shape
      type: transform
      transform: '({ label: run.outputs.review.verdict, n: inputs.count })'
    - id: relay
      type: transform
      transform: 'run.outputs.shape'
    - id: use
      type: transform
      transform: '[run.outputs.relay.label.length, run.outputs.relay.n.size, run.outputs.relay.x.y]'
    - id: route
      type: condition
      expression: 'run.outputs.relay.label'
      branches:
        - { when: 'approve', target_node: use }
    - id: note
      type: agent
      agent_ref: reviewer
      prompt_template: 'Note {{ run.outputs.relay.label | upper }} {{ run.outputs.shape }}'
  edges:
    - { from: start, to: review }
    - { from: review, to: shape }
    - { from: shape, to: relay }
    - { from: relay, to: route }
    - { from: relay, to: note }
"""

# (old, new) text edits, each changing what some typed check finds downstream of it
EDITS = [
    ("label: run.outputs.review.verdict", "label: run.outputs.review.missing"),
    ("label: run.outputs.review.verdict", "label: 5"),
    ("n: inputs.count", "n: [inputs.count]"),
    ("type: number, required: true", "type: string, required: true"),
    ("transform: 'run.outputs.shape'", "transform: 'run.outputs.shape.label'"),
    # a node id: `relay` read by others is gone, and back
    ("    - id: relay\n", "    - id: relais\n"),
    # an edge: relay no longer before route and note
    ("    - { from: relay, to: route }\n", ""),
    ("    - { from: shape, to: relay }\n", "    - { from: start, to: relay }\n"),
    # the filters and paths template-filter-type judges
    ("{{ run.outputs.shape }}", "{{ run.outputs.shape | json }}"),
    ("label | upper }}", "label | length }}"),
    ("'Note {{", "'Note {{ inputs.count | length }} {{"),
    # a line inserted above every site: the ranges move
    ("  id: takeover\n", "  id: takeover\n  description: moved\n"),
    # the agent's own schema, inline in the workflow instead of the file's
    ("      agent_ref: reviewer\n      prompt_template: Review.",
     "      agent_ref: reviewer\n      prompt_template: Review.\n      output_schema:\n"
     "        type: object\n        additionalProperties: false\n        properties:\n"
     "          verdict: { type: number }"),
]

# with the edits above in a sequence: a `when` that `label: 5` makes a branch never taken or
# taken again, a filter on the reference another edit writes (alone they change nothing)
SEQUENCE_EDITS = [*EDITS, ("when: 'approve'", "when: 5"),
                  ("inputs.count | length", "inputs.count | json")]


def _everything(result: AnalysisResult) -> list[tuple[object, ...]]:
    return [(d.range, d.severity, d.rule, d.message, d.data) for d in result.diagnostics]


def _placed(result: AnalysisResult, rule: str) -> list[tuple[object, int]]:
    """Each of the rule's findings: its data and the line it is on."""
    return [(d.data, d.range.start.line) for d in result.diagnostics if d.rule == rule]


def _line_of(text: str, marker: str) -> int:
    return next(line for line, row in enumerate(text.splitlines()) if marker in row)


def _project(tmp_path: Path, agent: str = AGENT) -> tuple[str, WorkspaceIndex]:
    agents = tmp_path / ".relavium" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "reviewer.agent.yaml").write_text(agent, "utf-8")
    path = tmp_path / ".relavium" / "workflows" / "w.relavium.yaml"
    path.parent.mkdir(exist_ok=True)
    return str(path), WorkspaceIndex(str(tmp_path))


def test_each_edit_matches_a_fresh_analysis_and_changes_the_typed_findings(
        tmp_path: Path) -> None:
    path, index = _project(tmp_path)
    before = analyze(WORKFLOW, path, workspace=index)
    assert any(d.rule in TYPED_RULES for d in before.diagnostics)
    for old, new in EDITS:
        assert old in WORKFLOW
        edited = WORKFLOW.replace(old, new, 1)
        fresh = analyze(edited, path, workspace=index)
        # a stale output would show: every edit changes what is found
        assert _everything(fresh) != _everything(before)
        incremental = analyze(edited, path, previous=before, workspace=index)
        assert _everything(incremental) == _everything(fresh), (old, new)
        restored = analyze(WORKFLOW, path, previous=incremental, workspace=index)
        assert _everything(restored) == _everything(before), (old, new)


def test_an_agent_files_schema_changed_is_not_taken_over(tmp_path: Path) -> None:
    path, index = _project(tmp_path)
    before = analyze(WORKFLOW, path, workspace=index)
    agent_file = tmp_path / ".relavium" / "agents" / "reviewer.agent.yaml"
    agent_file.write_text(OTHER_AGENT, "utf-8")
    index.update(str(agent_file), OTHER_AGENT)
    fresh = analyze(WORKFLOW, path, workspace=WorkspaceIndex(str(tmp_path)))
    assert _everything(fresh) != _everything(before)
    incremental = analyze(WORKFLOW, path, previous=before, workspace=index)
    assert _everything(incremental) == _everything(fresh)


def test_an_edit_elsewhere_takes_the_outputs_over_as_they_were(tmp_path: Path) -> None:
    path, index = _project(tmp_path)
    before = analyze(WORKFLOW, path, workspace=index)
    after = analyze(WORKFLOW.replace("prompt_template: Review.", "prompt_template: Review it."),
                    path, previous=before, workspace=index)
    assert before.types_memo is not None and after.types_memo is not None
    kept, now = before.types_memo.outputs, after.types_memo.outputs
    assert set(now) == set(kept) and {"shape", "relay"} <= set(now)
    # every output but the edited agent's (always derived again) is the previous object
    assert all(now[name] is kept[name] for name in now if name != "review")
    assert now["review"].output is kept["review"].output  # equal, so the previous object


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(range(len(SEQUENCE_EDITS))), st.booleans()),
                min_size=1,
                max_size=6))
def test_random_edit_sequences_match_fresh_analyses(tmp_path: Path,
                                                    steps: list[tuple[int, bool]]) -> None:
    path, index = _project(tmp_path)
    text = WORKFLOW
    previous = analyze(text, path, workspace=index)
    for which, undo in steps:
        old, new = SEQUENCE_EDITS[which]
        if undo:
            old, new = new, old
        if old not in text:
            continue
        text = text.replace(old, new, 1)
        previous = analyze(text, path, previous=previous, workspace=index)
        assert _everything(previous) == _everything(analyze(text, path, workspace=index))


def test_a_line_inserted_above_takes_the_steps_over_at_the_new_ranges(tmp_path: Path) -> None:
    path, index = _project(tmp_path)
    before = analyze(WORKFLOW, path, workspace=index)
    moved = WORKFLOW.replace("  id: takeover\n", "  id: takeover\n  description: moved\n", 1)
    after = analyze(moved, path, previous=before, workspace=index)
    assert before.types_memo is not None and after.types_memo is not None
    kept, now = before.types_memo.sites, after.types_memo.sites
    assert ("steps", "use", "transform") in now
    assert all(now[slot][1] is kept[slot][1] for slot in now)  # the steps taken over
    typed = [(d.rule, d.range.start.line) for d in before.diagnostics if d.rule in TYPED_RULES]
    assert typed and [(d.rule, d.range.start.line) for d in after.diagnostics
                      if d.rule in TYPED_RULES] == [(rule, line + 1) for rule, line in typed]


def test_the_rules_verdicts_are_taken_over_with_the_steps_and_judged_again_on_a_change(
        tmp_path: Path) -> None:
    path, index = _project(tmp_path)
    before = analyze(WORKFLOW, path, workspace=index)
    moved = WORKFLOW.replace("  id: takeover\n", "  id: takeover\n  description: moved\n", 1)
    after = analyze(moved, path, previous=before, workspace=index)
    assert before.types_memo is not None and after.types_memo is not None
    slot = ("steps", "use", "transform")
    kept = before.types_memo.sites[slot][1]
    # `.x` of relay's closed object: unknown-output-property's, at the taken-over site
    assert isinstance(kept, KeptSite) and kept.findings["unknown-output-property"]
    assert after.types_memo.sites[slot][1] is kept
    # relay hands on review's output now: the site's key differs, its verdicts are judged
    # again
    opened = moved.replace("'run.outputs.shape'", "'run.outputs.review'", 1)
    again = analyze(opened, path, previous=after, workspace=index)
    assert again.types_memo is not None and again.types_memo.sites[slot][1] is not kept
    assert _everything(again) == _everything(analyze(opened, path, workspace=index))


def test_a_template_verdict_is_taken_over_at_the_new_range_and_judged_again_on_a_change(
        tmp_path: Path) -> None:
    path, index = _project(tmp_path)
    text = WORKFLOW.replace("'Note {{", "'Note {{ inputs.count | length }} {{", 1)
    # the reference moves within its field too
    before, moved, after = _moved_down(text, path, index, ("'Note {{", "'Note again {{"))
    kept = {slot: entry for slot, entry in before.sites.items()
            if isinstance(slot, tuple) and slot[0] == "filter"}
    assert kept and all(after.sites[slot][1] is entry[1] for slot, entry in kept.items())
    assert _placed(after.result, "template-filter-type") == [
        ({"filter": "length", "reference": "inputs.count"}, _line_of(moved, "Note again"))]
    # count is a string now, which has a length; or the same path through another filter:
    # judged again, no finding
    for edit in (("type: number, required: true", "type: string, required: true"),
                 ("inputs.count | length", "inputs.count | upper")):
        again = _edited(moved, after.result, path, index, edit)
        assert not _placed(again, "template-filter-type")


def test_a_branch_verdict_is_taken_over_at_the_new_range_and_judged_again_on_a_change(
        tmp_path: Path) -> None:
    path, index = _project(tmp_path)
    # relay's label is always 5: route's `when: 'approve'` is never taken
    text = WORKFLOW.replace("label: run.outputs.review.verdict", "label: 5", 1)
    before, moved, after = _moved_down(text, path, index)
    slot = ("branches", "route")
    assert after.sites[slot][1] is before.sites[slot][1]
    assert _placed(after.result, "impossible-branch-value") == [
        ({"node": "route", "branch": 0, "suggestion": []}, _line_of(moved, "when: 'approve'"))]
    for edit in (("when: 'approve'", "when: 5"), ("when: 'approve'", "when: '5'")):
        again = _edited(moved, after.result, path, index, edit)
        assert len(_placed(again, "impossible-branch-value")) == (edit[1] == "when: '5'")


@dataclass
class Memoed:
    result: AnalysisResult
    sites: dict[object, tuple[object, object]]


def _memoed(result: AnalysisResult) -> Memoed:
    assert result.types_memo is not None
    return Memoed(result, result.types_memo.sites)


def _moved_down(text: str, path: str, index: WorkspaceIndex, *edits: tuple[str, str]
                ) -> tuple[Memoed, str, Memoed]:
    """`text` analysed, then again with a line inserted above every site (and `edits`) on the
    first's result, which finds what a fresh analysis finds."""
    before = analyze(text, path, workspace=index)
    moved = text.replace("  id: takeover\n", "  id: takeover\n  description: moved\n", 1)
    for edit in edits:
        moved = moved.replace(*edit, 1)
    after = analyze(moved, path, previous=before, workspace=index)
    assert _everything(after) == _everything(analyze(moved, path, workspace=index))
    return _memoed(before), moved, _memoed(after)


def _edited(text: str, previous: AnalysisResult, path: str, index: WorkspaceIndex,
            edit: tuple[str, str]) -> AnalysisResult:
    """`text` with `edit`, analysed on `previous`: what a fresh analysis finds."""
    changed = text.replace(*edit, 1)
    assert changed != text
    again = analyze(changed, path, previous=previous, workspace=index)
    assert _everything(again) == _everything(analyze(changed, path, workspace=index))
    return again
