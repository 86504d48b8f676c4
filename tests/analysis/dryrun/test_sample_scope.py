"""`analysis.dryrun.samples` and `analysis.dryrun.scope`: choosing the samples and building the
scope as the engine does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.checks.analyze import analyze
from analysis.dryrun.runner import run_workflow
from analysis.dryrun.samples import (
    SYNTHESIZED,
    Samples,
    SampleScopeError,
    find_samples,
    parse_samples,
    sidecar_path,
)
from analysis.dryrun.scope import BaseScope, build_sample_scope, engine_scope
from analysis.dryrun.values import UNDEFINED
from sandbox import Outcome, Scope, evaluate
from tests.conftest import EXAMPLES

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")

TAINT = """\
schema_version: '1.0'
workflow:
  id: taint
  inputs:
    - { name: b, type: string }
    - { name: a, type: number, default: 3 }
    - { name: key, type: secret, required: true }
    - { name: spare, type: secret }
  context:
    - { key: plain, value: 'team {{ inputs.b | default("none") }}' }
    - { key: auth, value: 'Bearer {{ inputs.key }}' }
    - { key: header, value: 'X {{ ctx.auth }}' }
    - { key: file, value: '{{ inputs.b | read_file }}' }
  nodes:
    - { id: start, type: input }
    - { id: t, type: transform, transform: 'inputs' }
  edges:
    - { from: start, to: t }
"""


def scope_for(text: str, node: str, samples: Samples = SYNTHESIZED) -> dict[str, object]:
    result = analyze(text, "x.relavium.yaml")
    assert result.workflow is not None and result.graph is not None
    return build_sample_scope(result.workflow, result.graph, node, samples).scope


def samples(raw: dict[str, object]) -> Samples:
    return parse_samples(json.dumps(raw), "s.json", "explicit", is_json=True)


@pytest.mark.parametrize(
    ("workflow", "sidecar"),
    [
        ("w/ticket.relavium.yaml", "w/ticket.samples.json"),
        ("w/ticket.relavium.yml", "w/ticket.samples.json"),
        ("w/.relavium/flow.yaml", "w/.relavium/flow.samples.json"),
    ],
)
def test_sidecar_name(workflow: str, sidecar: str) -> None:
    assert sidecar_path(Path(workflow)) == Path(sidecar)


def test_precedence_explicit_then_json_then_yaml_then_synthesized(tmp_path: Path) -> None:
    workflow = tmp_path / "t.relavium.yaml"
    assert find_samples(str(workflow)) is SYNTHESIZED
    (tmp_path / "t.samples.yaml").write_text("inputs: { b: yes }\n", encoding="utf-8")
    found = find_samples(str(workflow))
    assert (found.origin, found.inputs) == ("sidecar", {"b": "yes"})  # YAML 1.2: yes is a string
    (tmp_path / "t.samples.json").write_text('{"inputs": {"b": "json"}}', encoding="utf-8")
    assert find_samples(str(workflow)).inputs == {"b": "json"}
    explicit = tmp_path / "mine.json"
    explicit.write_text('{"run": {"outputs": {"start": 1}}}', encoding="utf-8")
    found = find_samples(str(workflow), str(explicit))
    assert (found.origin, found.outputs) == ("explicit", {"start": 1})


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"inputs": [1]}', "inputs must be an object"),
        ('{"secret_inputs": ["x"]}', "unknown key `secret_inputs` (the workflow declares"),
        ('{"nodes": {"t": {"colour": 1}}}', "unknown key `nodes.t.colour`"),
        ('{"nodes": {"t": {"branches": {}}}}', "nodes.t.branches must be an array"),
        ('{"run": {"outputs": {}, "id": 1}}', "`run` may only hold `outputs`"),
        ("[1, 2]", "expected an object"),
        ('{"inputs": ', "invalid JSON"),
    ],
)
def test_bad_samples_name_the_field(text: str, says: str) -> None:
    with pytest.raises(SampleScopeError) as raised:
        parse_samples(text, "s.json", "explicit", is_json=True)
    assert says in str(raised.value)


def test_pathologically_deep_json_samples_are_refused_not_a_crash() -> None:
    text = '{"inputs": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    with pytest.raises(SampleScopeError, match="flatten it"):
        parse_samples(text, "s.json", "explicit", is_json=True)


def test_yaml_samples_refuse_aliases() -> None:
    with pytest.raises(SampleScopeError, match="alias"):
        parse_samples("inputs: &a { b: 1 }\nctx: *a\n", "s.yaml", "sidecar", is_json=False)


def test_inputs_supplied_then_defaults_with_secrets_denied() -> None:
    scope = scope_for(TAINT, "t", samples({"inputs": {"b": "x", "key": "hunter2"}}))
    # supplied order, then declared defaults; the secret's value is gone; `spare` stays absent
    assert scope["inputs"] == {"b": "x", "key": None, "a": 3}
    assert scope["secret_inputs"] == ["key"]


def test_synthesized_required_secret_is_present_and_denied() -> None:
    scope = scope_for(TAINT, "t")
    assert scope["inputs"] == {"a": 3, "key": None}
    assert scope["secret_inputs"] == ["key"]


def test_context_taint_is_transitive_and_templates_resolve() -> None:
    scope = scope_for(TAINT, "t", samples({"inputs": {"b": "blue"}}))
    assert scope["ctx"] == {
        "plain": "team blue",
        "auth": None,
        "header": None,
        "file": "{{ inputs.b | read_file }}",  # a filter a sample cannot run: kept, and noted
    }
    assert scope["secret_ctx"] == ["auth", "header"]
    assert scope_for(TAINT, "t")["ctx"]["plain"] == "team none"  # type: ignore[index]


def test_outputs_are_narrowed_to_ancestors_and_sorted() -> None:
    outputs = {"sentiment": 1, "history": 2, "escalate": 3, "start": 4, "classify": 5}
    scope = scope_for(EXAMPLE, "combine", samples({"outputs": outputs}))
    assert list(scope["run"]["outputs"]) == ["classify", "history", "sentiment", "start"]  # type: ignore[index]
    assert scope["branches"] == [2, 1]  # enrich's parallel_of order: history, sentiment


def test_node_overrides_win() -> None:
    raw = {
        "outputs": {"history": 1, "sentiment": 2},
        "nodes": {"combine": {"outputs": {"history": 10}, "branches": ["given"]}},
    }
    scope = scope_for(EXAMPLE, "combine", samples(raw))
    assert scope["run"]["outputs"]["history"] == 10  # type: ignore[index]
    assert scope["branches"] == ["given"]
    assert "branches" not in scope_for(EXAMPLE, "history", samples(raw))


# A merge's `branches` as the engine builds them (HodeTech/Relavium
# packages/core/src/engine/node-handlers/fan-in.ts `branchOutputs`, unchanged from 839f2bd5 to
# 5f0d12a3: the branches present in `runOutputs`) over the plan's `branchNodeIds`, which the
# newest dag.ts fills with value-producing feeders only (ADR-0091 as amended 2026-09-03): `route`
# is a control edge (no branch), `extra` was skipped (left out), `left` completed. The whole dry
# run, "run with sample scope" after the ancestors ran, and a scope built from samples alone (a
# workflow with a cycle) build them alike.
ROUTED_MERGE = """\
schema_version: '1.0'
workflow:
  id: routed
  nodes:
    - { id: start, type: input }
    - id: route
      type: condition
      expression: '"x"'
      branches: [{ when: "y", target_node: extra }]
      default: join
    - { id: extra, type: transform, transform: '"E"' }
    - { id: left, type: transform, transform: '"L"' }
    - { id: join, type: merge, merge_strategy: custom, merge_fn: 'branches' }
  edges:
    - { from: start, to: route }
    - { from: start, to: left }
    - { from: extra, to: join }
    - { from: left, to: join }
"""
# The newest engine (ADR-0091 as amended 2026-09-03, dag.ts computeMergeBranchOrder): the
# condition is a control edge, not a branch; the July snapshot (839f2bd) gave [None, "L"].
ENGINE_BRANCHES = ["L"]


def in_process(source: str, kind: str, scope: Scope) -> Outcome:
    return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]


def test_the_engine_scope_keeps_completed_branches_and_leaves_out_the_others() -> None:
    result = analyze(ROUTED_MERGE, "x.relavium.yaml")
    assert result.graph is not None
    base = BaseScope({}, [], {}, [])
    stored = {"start": {}, "route": UNDEFINED, "left": "L"}
    scope = engine_scope(result.graph, "join", "merge", base, stored, {}, None)
    assert scope["branches"] == ENGINE_BRANCHES
    assert scope["run"] == {"outputs": {"left": "L", "start": {}}}  # a condition's is absent


def test_the_dry_run_and_the_sample_scope_give_a_merge_the_same_branches() -> None:
    result = analyze(ROUTED_MERGE, "x.relavium.yaml")
    assert result.workflow is not None and result.graph is not None
    run = run_workflow(result.workflow, result.graph, in_process)
    join = run.node("join")
    assert join is not None and join.value == ENGINE_BRANCHES
    after_ancestors = build_sample_scope(
        result.workflow, result.graph, "join", SYNTHESIZED, run.as_upstream()
    )
    assert after_ancestors.scope["branches"] == ENGINE_BRANCHES
    # without a run, the samples say what completed: `extra` has no output, so it was skipped
    alone = scope_for(ROUTED_MERGE, "join", samples({"outputs": {"start": {}, "left": "L"}}))
    assert alone["branches"] == ENGINE_BRANCHES


def test_only_expression_nodes_run() -> None:
    result = analyze(EXAMPLE, "x.relavium.yaml")
    assert result.workflow is not None and result.graph is not None
    with pytest.raises(SampleScopeError, match="no node with id `nope`"):
        build_sample_scope(result.workflow, result.graph, "nope")
    with pytest.raises(SampleScopeError, match=r"`classify` \(type agent\) has no expression"):
        build_sample_scope(result.workflow, result.graph, "classify")


@given(st.text(max_size=200), st.booleans())
def test_any_samples_text_parses_or_is_refused_clearly(text: str, is_json: bool) -> None:
    try:
        parsed = parse_samples(text, "s", "sidecar", is_json=is_json)
    except SampleScopeError as error:
        assert str(error).startswith("sample scope s")
    else:
        assert isinstance(parsed.inputs, dict) and isinstance(parsed.nodes, dict)


def test_yaml_samples_take_a_tag_as_its_plain_value() -> None:
    # A tag the engine's decoder ignores is only a warning in a workflow; a sample reads its value.
    scope = parse_samples("inputs: { who: !env HOME }\n", "s.yaml", "sidecar", is_json=False)
    assert scope.inputs == {"who": "HOME"}
