"""Run semantics of the newest engine contract (issue 27 items 6-11), each pinned against its
source. Where the July snapshot (HodeTech/Relavium 839f2bd) and a newer contract differ, the
newer wins and the test says so."""

from __future__ import annotations

import json
from typing import Any

import pytest

from analysis.checks.analyze import analyze
from analysis.dryrun.skeleton import sidecar_skeleton
from tests.analysis.dryrun.test_workflow_run import (
    AGENTS,
    HEAD,
    by_id,
    dry_run,
    in_process,
    pins,
)

# A start node and a condition `route` that always routes to `{target}`
ROUTED_TO = """\
  nodes:
    - {{{{ id: start, type: input }}}}
    - id: route
      type: condition
      expression: '"go"'
      branches: [{{{{ when: "go", target_node: {target} }}}}]
"""


# A merge fed only by a condition that routes to it: ADR-0091 as amended 2026-09-03
# (docs/decisions/0091-first-means-first-declared-not-first-to-finish.md, "Consequences"): a
# condition is a control edge, so the merge has zero branches. The July snapshot gave the
# condition's undefined as a branch (first → undefined, concat → [null], object_merge failed).
ONLY_CONTROL = ROUTED_TO.format(target="join") + """\
    - id: join
      type: merge
      merge_strategy: {strategy}
      merge_fn: '({{ n: branches.length, all: branches }})'
    - {{ id: out, type: output }}
  edges:
    - {{ from: start, to: route }}
    - {{ from: join, to: out }}
"""


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("first", None),
        ("concat", []),
        ("object_merge", {}),
        ("custom", {"n": 0, "all": []}),
    ],
)
def test_a_merge_fed_only_by_a_condition_has_zero_branches(strategy: str, expected: Any) -> None:
    nodes = by_id(dry_run(ONLY_CONTROL.format(strategy=strategy)))
    assert (nodes["join"]["status"], nodes["join"]["value"]) == ("ran", expected)
    assert nodes["out"]["value"] == expected


# Two parallels feed one merge: `guards` fans out a condition (no value) and is authored first,
# `work` fans out the real branches in the order [c, b]. ADR-0091's third-pass correction: the
# pairing is ranked by how many value-producing feeders a parallel covers, so `work` pairs and
# concat follows its parallel_of order (the first-match search gave authored order ["B", "C"]).
# A parallel naming the merge itself in parallel_of still pairs (the merge is exempt).
RANKED = """\
  nodes:
    - id: start
      type: input
    - {{ id: guards, type: parallel, parallel_of: [check] }}
    - id: check
      type: condition
      expression: '"ok"'
      branches: [{{ when: "ok", target_node: join }}]
    - {{ id: work, type: parallel, parallel_of: [{members}] }}
    - {{ id: b, type: transform, transform: '"B"' }}
    - {{ id: c, type: transform, transform: '"C"' }}
    - {{ id: join, type: merge, merge_strategy: concat }}
  edges:
    - {{ from: start, to: guards }}
    - {{ from: start, to: work }}
    - {{ from: b, to: join }}
    - {{ from: c, to: join }}
"""


@pytest.mark.parametrize("members", ["c, b", "c, join, b"])
def test_the_paired_parallel_is_ranked_by_coverage(members: str) -> None:
    nodes = by_id(dry_run(RANKED.format(members=members)))
    assert nodes["join"]["value"] == ["C", "B"]


# The output node captures its value-producing feeders only (io.ts `runOutput` over
# `feederNodeIds`, HodeTech/Relavium 1917d9c; ADR-0091 correction 3): fed only by a condition it
# captures null; a condition plus one real feeder is that feeder's value verbatim. The July
# snapshot captured the condition's undefined, and `{work: "WORK"}` for the second shape.
OUTPUT_FED = ROUTED_TO.format(target="out") + """\
    - {{ id: work, type: transform, transform: '"WORK"' }}
    - {{ id: out, type: output }}
  edges:
    - {{ from: start, to: route }}
    - {{ from: start, to: work }}
{extra}"""


@pytest.mark.parametrize(
    ("extra", "expected"),
    [("", None), ("    - { from: work, to: out }\n", "WORK")],
)
def test_the_output_captures_only_value_producing_feeders(extra: str, expected: Any) -> None:
    out = by_id(dry_run(OUTPUT_FED.format(extra=extra)))["out"]
    assert (out["status"], out["value"]) == ("ran", expected)


def test_a_gate_pinned_to_null_stores_the_bare_decision() -> None:
    # engine.ts `resume` (839f2bd): the gate's output is `decision.payload ?? {decision}`, so a
    # null input stores {"decision": "input_provided"}
    nodes = by_id(dry_run(AGENTS, pins({"outputs": {"gate": None}})))
    assert (nodes["gate"]["status"], nodes["gate"]["value"]) == (
        "pinned", {"decision": "input_provided"}
    )
    assert nodes["out"]["value"] == {"decision": "input_provided"}


# an agent `ask` whose prompt_template is TEMPLATE, after a transform `obj` that stores an object
TEMPLATED = """\
  inputs:
    - { name: s, type: string, required: true }
    - { name: n, type: number, required: false }
  agents:
    - { id: w, model: claude-sonnet-4, provider: anthropic, system_prompt: x }
  nodes:
    - { id: start, type: input }
    - { id: obj, type: transform, transform: '({ a: 1 })' }
    - { id: ask, type: agent, agent_ref: w, prompt_template: "TEMPLATE" }
    - { id: out, type: output }
  edges:
    - { from: start, to: obj }
    - { from: obj, to: ask }
    - { from: ask, to: out }
"""
INPUT_S = TEMPLATED.replace("TEMPLATE", "Say {{ inputs.s }}")


@pytest.mark.parametrize("value", ["", "hello"])
def test_an_input_whose_name_is_inside_inputs_renders_in_a_template(value: str) -> None:
    # the July run loop rendered `{{ inputs.s }}` with "" and completed the node: an empty string
    # is a value (the name `s` must not be looked for inside `inputs`)
    nodes = by_id(dry_run(INPUT_S, pins({"inputs": {"s": value}})))
    assert nodes["ask"]["status"] == "synthesized"
    assert nodes["out"]["status"] == "ran"


def wide(count: int, cap: str = "") -> str:
    """`count` independent transforms after the input node; the first one fails."""
    nodes = "".join(
        f"    - {{ id: t{i}, type: transform, transform: '{'null.x' if i == 1 else i}' }}\n"
        for i in range(1, count + 1)
    )
    edges = "".join(f"    - {{ from: start, to: t{i} }}\n" for i in range(1, count + 1))
    return f"{cap}  nodes:\n    - {{ id: start, type: input }}\n{nodes}  edges:\n{edges}"


@pytest.mark.parametrize(("cap", "ninth"), [("", "not-run"), ("  max_parallel: 9\n", "failed")])
def test_an_omitted_max_parallel_is_eight(cap: str, ninth: str) -> None:
    # ADR-0086 §3 (limits.ts DEFAULT_MAX_PARALLEL = 8, engine.ts #claimReady `maxParallel ??
    # DEFAULT_MAX_PARALLEL`; the July snapshot was uncapped): eight of the nine ready nodes are
    # claimed with the failing t1 and cancelled with it; the ninth was never dispatched
    nodes = by_id(dry_run(wide(9, cap)))
    assert nodes["t1"]["error"]["reason"] == "runtime"
    assert {nodes[f"t{i}"]["error"]["code"] for i in range(2, 9)} == {"cancelled"}
    assert nodes["t9"]["status"] == ninth


def test_a_run_fails_turn_limit_at_its_500th_node_start() -> None:
    # ADR-0086 §4 (limits.ts ADMISSION_CEILINGS.nodeDispatchesPerRun = 500; engine.ts #step
    # checks it before claiming and fails the RUN with `turn_limit`, no node failing): a chain of
    # 502 nodes starts 500 of them; the last two never start
    chain = "".join(
        f"    - {{ id: t{i}, type: transform, transform: '{i}' }}\n" for i in range(501)
    )
    edges = "".join(
        f"    - {{ from: {f't{i - 1}' if i else 'start'}, to: t{i} }}\n" for i in range(501)
    )
    run = dry_run(f"  nodes:\n    - {{ id: start, type: input }}\n{chain}  edges:\n{edges}")
    answer = run.to_json()
    assert answer["ok"] is False
    assert answer["error"] == {
        "code": "turn_limit", "message": "the run reached its limit of 500 node dispatches",
        "retryable": False,
    }
    assert [node["status"] for node in answer["nodes"]].count("ran") == 500
    assert [(n["id"], n["status"]) for n in answer["nodes"][-2:]] == [
        ("t499", "not-run"), ("t500", "not-run")
    ]
    assert all(node["status"] != "failed" for node in answer["nodes"])


AGENT_SCHEMA = """\
  agents:
    - id: w
      model: claude-sonnet-4
      provider: anthropic
      system_prompt: x
      output_schema: { type: object, properties: { label: { type: string, enum: [spam, ham] } } }
  nodes:
    - { id: start, type: input }
    - { id: inherits, type: agent, agent_ref: w, prompt_template: hi }
    - id: overrides
      type: agent
      agent_ref: w
      prompt_template: hi
      output_schema: { type: object, properties: { score: { type: number } } }
  edges:
    - { from: start, to: inherits }
    - { from: start, to: overrides }
"""


def test_an_agent_nodes_output_schema_falls_back_to_its_agents() -> None:
    # agent-runner.ts: `node.output_schema ?? agent.output_schema` (issue 27 item 9); the dry run
    # and the samples skeleton synthesize from that one schema
    nodes = by_id(dry_run(AGENT_SCHEMA))
    assert nodes["inherits"]["value"] == {"label": "spam"}
    assert nodes["overrides"]["value"] == {"score": 0}
    result = analyze(HEAD + AGENT_SCHEMA)
    assert result.workflow is not None and result.graph is not None
    made = sidecar_skeleton(result.workflow, result.graph, in_process)
    assert json.loads(made.text)["outputs"]["inherits"] == {"label": "spam"}


@pytest.mark.parametrize(
    ("template", "inputs", "status"),
    [
        # filters.ts `default` passes a value through, and stringify refuses an object
        ("{{ run.outputs['obj'] | default('x') }}", {}, "failed"),
        ("{{ inputs.n | default('x') }}", {}, "synthesized"),
        # filters.ts `read_file` refuses anything but a string (filter_type)
        ("{{ inputs.n | read_file }}", {"n": 3}, "failed"),
        ("{{ inputs.n | default('a.md') | read_file }}", {}, "synthesized"),
        ("{{ run.outputs['obj'] | json }}", {}, "synthesized"),
    ],
)
def test_a_template_resolves_through_its_filters_in_order(
    template: str, inputs: dict[str, Any], status: str
) -> None:
    # a node's templates go through the same resolver as the context (interpolation/resolve.ts
    # `resolveReference`: head, path, then each filter in order; HodeTech/Relavium 839f2bd)
    text = TEMPLATED.replace("TEMPLATE", template)
    nodes = by_id(dry_run(text, pins({"inputs": {"s": "hi", **inputs}})))
    assert nodes["ask"]["status"] == status
