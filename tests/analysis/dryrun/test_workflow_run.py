"""The whole-workflow dry run against the engine's run loop. Every expectation below was
observed by running the engine's own WorkflowEngine (packages/core/src/engine/engine.ts with its
node-handlers/) on the same workflow; the comment on each test says what the engine did."""

from __future__ import annotations

import json
from typing import Any

import pytest

from analysis.checks.analyze import analyze
from analysis.dryrun.plan import plan_order
from analysis.dryrun.presentation import placements
from analysis.dryrun.results import WorkflowRun
from analysis.dryrun.runner import run_workflow
from analysis.dryrun.samples import SYNTHESIZED, Samples, parse_samples
from analysis.dryrun.values import strictly_equal
from sandbox import Outcome, Scope, evaluate
from tests.analysis.failing_workflow import FAILING_NODES

HEAD = "schema_version: '1.0'\nworkflow:\n  id: t\n"


def in_process(source: str, kind: str, scope: Scope) -> Outcome:
    return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]


def dry_run(body: str, samples: Samples = SYNTHESIZED, **options: Any) -> WorkflowRun:
    result = analyze(HEAD + body)
    assert result.workflow is not None and result.graph is not None, result.diagnostics
    return run_workflow(result.workflow, result.graph, in_process, samples, **options)


def statuses(run: WorkflowRun) -> list[tuple[str, str]]:
    return [(node.id, node.status) for node in run.nodes]


def by_id(run: WorkflowRun) -> dict[str, dict[str, Any]]:
    return {entry["id"]: entry for entry in run.to_json()["nodes"]}


def pins(raw: dict[str, Any]) -> Samples:
    return parse_samples(json.dumps(raw), "pins.json", "explicit", is_json=True)


ROUTE = """\
  inputs:
    - {{ name: n, type: {type} }}
  nodes:
    - {{ id: start, type: input }}
    - id: route
      type: condition
      expression: 'inputs.n'
      branches:
        - {{ when: true, target_node: a }}
        - {{ when: 1, target_node: b }}
      default: c
    - {{ id: a, type: transform, transform: '"A"' }}
    - id: b
      type: transform
      transform: '[run.outputs.route === undefined, "route" in run.outputs]'
    - {{ id: c, type: transform, transform: '"C"' }}
    - {{ id: m, type: merge, merge_strategy: concat }}
    - {{ id: out, type: output }}
  edges:
    - {{ from: start, to: route }}
    - {{ from: a, to: m }}
    - {{ from: b, to: m }}
    - {{ from: c, to: m }}
    - {{ from: m, to: out }}
"""


def test_when_matching_is_strict_and_a_condition_stores_no_output() -> None:
    # engine, n=1: route selected ["b"]; a and c skipped branch_not_taken (authored order);
    # b saw run.outputs without `route`; m = [b]; out captured m verbatim
    run = dry_run(ROUTE.format(type="number"), pins({"inputs": {"n": 1}}))
    assert statuses(run) == [
        ("start", "ran"), ("route", "ran"), ("a", "skipped"), ("c", "skipped"), ("b", "ran"),
        ("m", "ran"), ("out", "ran"),
    ]
    nodes = by_id(run)
    assert "value" not in nodes["route"]
    assert nodes["a"]["reason"] == 'route chose "b"'
    assert nodes["b"]["value"] == [True, False]
    assert nodes["out"]["value"] == [[True, False]]
    assert run.ok and run.to_json()["ok"] is True


@pytest.mark.parametrize(
    ("kind", "value", "chosen"),
    [("boolean", True, "a"), ("number", 0, "c"), ("boolean", False, "c"), ("string", "1", "c")],
)
def test_no_coercion_between_when_and_the_result(kind: str, value: Any, chosen: str) -> None:
    run = dry_run(ROUTE.format(type=kind), pins({"inputs": {"n": value}}))
    ran = {node.id for node in run.nodes if node.status == "ran"}
    assert ran & {"a", "b", "c"} == {chosen}


def test_strictly_equal_is_javascripts() -> None:
    assert not strictly_equal(True, 1) and not strictly_equal(0, False)
    assert not strictly_equal("1", 1) and strictly_equal(1, 1.0)
    assert not strictly_equal(float("nan"), float("nan"))


FAN = """\
  nodes:
    - { id: start, type: input }
    - { id: fan, type: parallel, parallel_of: [right, left] }
    - { id: left, type: transform, transform: '"L"' }
    - { id: right, type: transform, transform: '"R"' }
    - { id: other, type: transform, transform: '"O"' }
    - { id: join, type: merge, merge_strategy: concat }
    - id: route
      type: condition
      expression: '"x"'
      branches:
        - { when: "y", target_node: join }
      default: after
    - { id: after, type: transform, transform: 'Object.keys(run.outputs)' }
    - { id: out, type: output }
  edges:
    - { from: start, to: fan }
    - { from: start, to: other }
    - { from: start, to: route }
    - { from: other, to: join }
    - { from: left, to: join }
    - { from: right, to: join }
    - { from: join, to: out }
    - { from: after, to: out }
"""


def test_fan_in_leaves_out_a_condition_and_a_plain_edge_keeps_its_target_alive() -> None:
    # July engine (839f2bd): join = ["R","L","O",null], the condition a branch without output.
    # The newest contract wins (ADR-0091 as amended 2026-09-03, dag.ts computeMergeBranchOrder):
    # a condition feeding a merge is a control edge, so join = ["R","L","O"] (parallel_of order,
    # then authored); join still ran (plain edges are live); out with two live feeders = a record
    # keyed by sorted id
    run = dry_run(FAN)
    nodes = by_id(run)
    assert nodes["fan"]["value"] is None and nodes["fan"]["status"] == "ran"
    assert nodes["join"]["value"] == ["R", "L", "O"]
    assert nodes["after"]["value"] == ["start"]  # ancestors only; never the condition
    assert nodes["out"]["value"] == {"after": ["start"], "join": ["R", "L", "O"]}
    assert [node.id for node in run.nodes] == [
        "start", "fan", "other", "route", "left", "right", "after", "join", "out"
    ]


def test_plan_order_is_kahn_with_authored_ties() -> None:
    result = analyze(HEAD + FAN)
    assert result.workflow is not None and result.graph is not None
    assert plan_order(result.workflow, result.graph) == [
        "start", "fan", "left", "right", "other", "route", "join", "after", "out"
    ]


FAIL = """\
  agents:
    - { id: w, model: claude-sonnet-4, provider: anthropic, system_prompt: x }
  nodes:
    - { id: start, type: input }
    - { id: side, type: transform, transform: '3' }
    - { id: next, type: transform, transform: '4' }
    - { id: tail, type: transform, transform: '5' }
    - { id: fan, type: parallel, parallel_of: [broken, slow] }
    - { id: broken, type: transform, transform: 'null.x' }
    - { id: slow, type: agent, agent_ref: w, prompt_template: hi }
    - { id: later, type: transform, transform: '1' }
    - { id: dep, type: transform, transform: '2' }
    - { id: join, type: merge, merge_strategy: first }
  edges:
    - { from: start, to: fan }
    - { from: start, to: side }
    - { from: side, to: next }
    - { from: next, to: tail }
    - { from: slow, to: join }
    - { from: broken, to: join }
    - { from: broken, to: dep }
    - { from: join, to: later }
"""


def test_a_failure_ends_the_run() -> None:
    # engine: broken failed; the sibling in flight (slow) was cancelled; dep, join, later
    # skipped as upstream_unreachable; tail, ready only after the failure, never started
    run = dry_run(FAIL)
    nodes = by_id(run)
    assert nodes["broken"]["status"] == "failed"
    assert nodes["broken"]["error"]["reason"] == "runtime"
    # the engine settles a dispatched node the abort reaches `failed` with the handlers'
    # cancelled() outcome (node-handlers/scope.ts, engine.ts #onOutcome at 839f2bd; issue 27
    # item 11)
    assert (nodes["slow"]["status"], nodes["slow"]["reason"]) == (
        "failed", "cancelled when `broken` failed"
    )
    assert nodes["slow"]["error"] == {
        "code": "cancelled", "message": "the run was cancelled", "retryable": False
    }
    assert nodes["dep"] == {**nodes["dep"], "status": "skipped",
                            "reason": 'upstream "broken" failed'}
    assert nodes["join"]["status"] == "skipped" and nodes["later"]["status"] == "skipped"
    assert nodes["next"]["status"] == "ran"  # settled in the same step, before the failure
    assert nodes["tail"]["status"] == "not-run"  # would have started after it
    assert nodes["tail"]["reason"] == "the run ended when `broken` failed"
    assert run.ok is False and len(run.nodes) == 10


MERGES = """\
  nodes:
    - {{ id: start, type: input }}
    - {{ id: fan, type: parallel, parallel_of: [one, two] }}
    - {{ id: one, type: transform, transform: '({{a: 1, k: "one"}})' }}
    - {{ id: two, type: transform, transform: '{two}' }}
    - id: join
      type: merge
      merge_strategy: {strategy}
      merge_fn: 'branches.map(b => typeof b)'
  edges:
    - {{ from: start, to: fan }}
    - {{ from: one, to: join }}
    - {{ from: two, to: join }}
"""


@pytest.mark.parametrize(
    ("strategy", "two", "expected"),
    [
        ("concat", "[NaN, -0]", [{"a": 1, "k": "one"}, [None, 0]]),
        ("object_merge", '({b: 2, k: "two"})', {"a": 1, "b": 2, "k": "two"}),
        ("first", "2", {"a": 1, "k": "one"}),
        ("custom", "NaN", ["object", "object"]),
    ],
)
def test_each_merge_strategy(strategy: str, two: str, expected: Any) -> None:
    # custom: a NaN output reaches the merge_fn as null (typeof null is "object")
    run = dry_run(MERGES.format(strategy=strategy, two=two))
    assert by_id(run)["join"]["value"] == expected


def test_object_merge_of_a_non_object_fails_the_node() -> None:
    run = dry_run(MERGES.format(strategy="object_merge", two="[1]"))
    join = by_id(run)["join"]
    assert join["status"] == "failed"
    assert join["error"]["message"] == (
        "object_merge requires every branch output to be a JSON object"
    )


def test_values_cross_nodes_as_json() -> None:
    run = dry_run(MERGES.format(strategy="concat", two="-0"))
    assert by_id(run)["two"]["value"] == 0 and by_id(run)["join"]["value"][1] == 0


AGENTS = """\
  inputs:
    - { name: token, type: secret, required: false }
    - { name: topic, type: string, default: billing }
  agents:
    - { id: w, model: claude-sonnet-4, provider: anthropic, system_prompt: x }
  nodes:
    - { id: start, type: input }
    - id: classify
      type: agent
      agent_ref: w
      prompt_template: 'About {{ inputs.topic }}'
      output_schema: { type: object, properties: { severity: { type: number } } }
    - id: reply
      type: agent
      agent_ref: w
      prompt_template: 'Severity {{ run.outputs["classify"].severity }}'
    - { id: gate, type: human_gate, gate_type: approval, message_template: 'ok?' }
    - { id: out, type: output }
  edges:
    - { from: start, to: classify }
    - { from: reply, to: gate }
    - { from: gate, to: out }
"""


def test_agents_and_gates_are_pinned_or_synthesized() -> None:
    run = dry_run(AGENTS, pins({"inputs": {"token": "s3cr3t"}, "outputs": {"reply": "Hi"}}))
    nodes = by_id(run)
    assert nodes["start"]["value"] == {
        "token": {"secret": True, "ref": "inputs.token"}, "topic": "billing"
    }
    assert (nodes["classify"]["status"], nodes["classify"]["value"]) == (
        "synthesized", {"severity": 0}
    )
    assert (nodes["reply"]["status"], nodes["reply"]["value"]) == ("pinned", "Hi")
    assert nodes["gate"]["value"] == {"decision": "approved"}
    assert nodes["out"]["value"] == {"decision": "approved"}
    assert "s3cr3t" not in json.dumps(run.to_json())


def test_a_template_that_fails_in_the_engine_fails_before_the_pin() -> None:
    # the engine resolves prompt_template first: a reference to nothing fails the node
    body = AGENTS.replace(".severity }}", ".missing }}")
    run = dry_run(body, pins({"outputs": {"reply": "Hi"}}))
    reply = by_id(run)["reply"]
    assert reply["status"] == "failed"
    assert "resolved to no value" in reply["error"]["message"]
    assert "default" in reply["error"]["message"]


def test_cancelled_and_bounded() -> None:
    run = dry_run(FAN, cancelled=lambda: True)
    assert {node.status for node in run.nodes} == {"not-run"}
    assert run.nodes[0].reason == "the dry run was cancelled"
    slow = dry_run(FAN, budget_s=0)
    assert slow.nodes[0].reason == "the dry run's 0 s bound was reached"


def test_every_node_appears_once_with_ms() -> None:
    run = dry_run(FAIL)
    ids = [entry["id"] for entry in run.to_json()["nodes"]]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 10
    assert all(isinstance(entry["ms"], float | int) for entry in run.to_json()["nodes"])


OUTPUTS = """\
  inputs:
    - { name: token, type: secret, required: false }
  nodes:
    - { id: start, type: input }
    - id: route
      type: condition
      expression: '"b"'
      branches:
        - { when: a, target_node: a }
      default: b
    - { id: a, type: transform, transform: '({ x: undefined, y: 1 })' }
    - { id: b, type: transform, transform: '({ x: undefined, y: 2 })' }
    - { id: only-a, type: output }
    - { id: only-b, type: output }
    - { id: peek, type: transform, transform: 'inputs.token' }
  edges:
    - { from: start, to: route }
    - { from: a, to: only-a }
    - { from: b, to: only-b }
    - { from: b, to: peek }
"""


def test_an_output_without_a_live_feeder_is_skipped_and_undefined_is_dropped() -> None:
    # engine: a skipped branch_not_taken, only-a skipped upstream_unreachable (never a null
    # capture), b's undefined property dropped, only-b captured b verbatim
    run = dry_run(OUTPUTS, pins({"inputs": {"token": "s3cr3t"}}))
    nodes = by_id(run)
    assert (nodes["only-a"]["status"], nodes["only-a"]["reason"]) == (
        "skipped", 'upstream "a" was skipped'
    )
    assert "value" not in nodes["only-a"]
    assert nodes["b"]["value"] == {"y": 2} and nodes["only-b"]["value"] == {"y": 2}
    # an expression reading a secret input is denied, as in the sandbox contract
    assert nodes["peek"]["status"] == "failed"
    assert nodes["peek"]["error"]["reason"] == "secret_context"
    assert "detail" not in nodes["peek"]["error"]  # a secret read never has one
    assert "s3cr3t" not in json.dumps(run.to_json())


def test_a_failure_on_a_synthesized_sample_names_the_ancestor_and_how_to_pin_it() -> None:
    body = AGENTS.replace(
        "    - { id: out, type: output }",
        "    - { id: out, type: output }\n"
        "    - { id: use, type: transform, transform: 'run.outputs.reply.toUpperCase().x.y' }",
    ).replace("    - { from: gate, to: out }", "    - { from: gate, to: out }\n"
              "    - { from: reply, to: use }")
    run = dry_run(body)
    use = by_id(run)["use"]
    assert use["status"] == "failed" and use["error"]["reason"] == "runtime"
    [hint] = [note for note in run.notes if note.startswith("`use` failed")]
    assert "`reply` (agent" in hint and '"outputs": {"reply": …}' in hint
    assert "`classify`" not in hint  # an ancestor the expression does not read is not blamed
    # pinned, the same failure has no such note
    pinned = dry_run(body, pins({"outputs": {"reply": "hi"}}))
    assert not any(note.startswith("`use` failed") for note in pinned.notes)


def test_a_template_failure_is_placed_on_the_reference() -> None:
    body = AGENTS.replace(".severity }}", ".missing }}")
    result = analyze(HEAD + body)
    assert result.workflow is not None and result.graph is not None
    run = run_workflow(result.workflow, result.graph, in_process, SYNTHESIZED)
    [failed] = [p for p in placements(run, result.source) if p.problem == "failed"]
    assert failed.node == "reply"
    start = result.source.offset(failed.range.start)
    end = result.source.offset(failed.range.end)
    assert (HEAD + body)[start:end] == '{{ run.outputs["classify"].missing }}'
    skipped = [p for p in placements(run, result.source) if p.problem == "dimmed"]
    assert [p.node for p in skipped] == ["gate", "out"]


def test_a_failure_carries_the_authors_error_in_document_coordinates() -> None:
    text = HEAD + FAILING_NODES
    run = dry_run(FAILING_NODES)
    nodes = by_id(run)
    detail = nodes["check-amount"]["error"]["detail"]
    assert (detail["class"], detail["message"]) == (
        "TypeError", "cannot read property 'risk' of null"
    )
    start, end = detail["range"]["start"], detail["range"]["end"]
    line = text.splitlines()[start["line"]]
    assert line == "         2].map(x => null.risk)"
    # UTF-16 columns; this line is ASCII, so they index it directly
    assert line[start["character"]:end["character"]] == "risk"
    assert end["line"] == start["line"]


def test_a_detail_range_counts_utf16_on_a_non_ascii_line() -> None:
    body = FAILING_NODES.replace("""["é😀",
         2]""", """["é😀"]""")
    run = dry_run(body)
    detail = by_id(run)["check-amount"]["error"]["detail"]
    start = detail["range"]["start"]
    line = (HEAD + body).splitlines()[start["line"]]
    prefix = line[: line.index("risk")]
    assert start["character"] == len(prefix.encode("utf-16-le")) // 2
    assert start["character"] == len(prefix) + 1  # the emoji is two UTF-16 units
    result = analyze(HEAD + body)
    assert result.workflow is not None and result.graph is not None
    [failed] = [p for p in placements(run, result.source) if p.problem == "failed"]
    assert failed.message == (
        "dry run: `check-amount` failed: TypeError: cannot read property 'risk' of null"
    )
    assert (HEAD + body)[
        result.source.offset(failed.range.start):result.source.offset(failed.range.end)
    ] == "risk"


CHAIN = """\
  inputs:
    - { name: n, type: number, default: 2 }
  nodes:
    - { id: start, type: input }
    - { id: calc, type: transform, transform: 'inputs.n * 10' }
    - { id: use, type: transform, transform: 'run.outputs.calc + inputs.n' }
    - { id: off, type: transform, transform: '1' }
  edges:
    - { from: start, to: calc }
    - { from: calc, to: use }
"""


def test_samples_outputs_of_computed_nodes_are_not_used_and_a_stale_one_is_noted() -> None:
    # a dry run recomputes calc and use; `outputs` pins agents and gates only. An entry that
    # matches what the run computed (as the starter sidecar writes it) says nothing; one that
    # differs is named, in run order (off runs beside calc), with what the run computed now
    run = dry_run(CHAIN, pins({"outputs": {"use": 99, "calc": 20, "off": True}}))
    assert by_id(run)["use"]["value"] == 22 and by_id(run)["off"]["value"] == 1
    assert run.notes == [
        "the samples' outputs for `off` (now 1), `use` (now 22) differ from this dry run and "
        "are not used: a dry run recomputes every node but agent and human_gate ones; update or "
        "delete those entries (`nodes.<id>.outputs` sets what one node sees)"
    ]
    assert dry_run(CHAIN, pins({"outputs": {"calc": 20, "use": 22}})).notes == []


def test_nodes_overrides_set_one_nodes_scope_in_a_whole_run_too() -> None:
    # `nodes.use` is the scope `run --node use` evaluates with; the whole run uses it for `use`
    # as well, so the two answer the same value; the other nodes are untouched
    run = dry_run(CHAIN, pins({"nodes": {"use": {"outputs": {"calc": 500}, "inputs": {"n": 1}}}}))
    assert by_id(run)["calc"]["value"] == 20
    assert by_id(run)["use"]["value"] == 501
    assert run.notes == ["`use` ran with the samples' `nodes.use` laid over its scope"]


def capped(body: str, cap: str | None) -> str:
    return body if cap is None else f"  max_parallel: {cap}\n" + body


SERIAL = """\
  nodes:
    - { id: start, type: input }
    - { id: a, type: transform, transform: '1' }
    - { id: a2, type: transform, transform: 'null.x' }
    - { id: b, type: transform, transform: '2' }
  edges:
    - { from: start, to: a }
    - { from: start, to: b }
    - { from: a, to: a2 }
"""


@pytest.mark.parametrize(
    ("cap", "b", "order"),
    [
        # engine, uncapped: a and b start together and complete; then a2 fails
        (None, "ran", ["start", "a", "b", "a2"]),
        # engine, max_parallel 1: one node in flight at a time, in plan order (start, a, a2, b):
        # a2 fails before b was ever started
        ("1", "not-run", ["start", "a", "a2", "b"]),
        # a float that is an integer is the engine's integer; an invalid cap (the engine refuses
        # the workflow) runs as if omitted: 8 (ADR-0086 §3), wide enough for this graph
        ("1.0", "not-run", ["start", "a", "a2", "b"]),
        ("0", "ran", ["start", "a", "b", "a2"]),
        ("true", "ran", ["start", "a", "b", "a2"]),
    ],
)
def test_max_parallel_caps_the_nodes_in_flight_and_so_what_a_failure_stops(
    cap: str | None, b: str, order: list[str]
) -> None:
    run = dry_run(capped(SERIAL, cap))
    assert [node.id for node in run.nodes] == order
    nodes = by_id(run)
    assert nodes["b"]["status"] == b
    if b == "not-run":
        assert nodes["b"]["reason"] == "the run ended when `a2` failed"


@pytest.mark.parametrize(
    ("cap", "expected"),
    [
        # engine, max_parallel 1: start side next tail fan broken, then the run failed: tail
        # completed, the agent (slow) never started
        ("1", {"tail": ("ran", None),
               "slow": ("not-run", "the run ended when `broken` failed")}),
        # engine, max_parallel 2: {side, fan} then {next, broken}: broken failed before tail or
        # slow had a slot (the engine refilled next's slot with tail and cancelled it: not run
        # either way)
        ("2", {"tail": ("not-run", "the run ended when `broken` failed"),
               "slow": ("not-run", "the run ended when `broken` failed")}),
        # engine, max_parallel 3: broken and slow started together; slow was cancelled
        ("3", {"tail": ("not-run", "the run ended when `broken` failed"),
               "slow": ("failed", "cancelled when `broken` failed")}),
    ],
)
def test_max_parallel_counts_every_node_type_in_plan_order(
    cap: str, expected: dict[str, tuple[str, str | None]]
) -> None:
    run = dry_run(capped(FAIL, cap))
    nodes = by_id(run)
    for node_id, (status, reason) in expected.items():
        assert (nodes[node_id]["status"], nodes[node_id].get("reason")) == (status, reason)
    assert nodes["dep"]["status"] == "skipped" and len(run.nodes) == 10
    if cap == "1":  # one at a time: the run is the plan order itself
        result = analyze(HEAD + capped(FAIL, cap))
        assert result.workflow is not None and result.graph is not None
        ran = [node.id for node in run.nodes if node.status in ("ran", "failed")]
        assert ran == plan_order(result.workflow, result.graph)[:len(ran)]
