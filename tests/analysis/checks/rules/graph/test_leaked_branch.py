"""leaked-branch against the engine's run loop, through our dry run.

The engine (packages/core/src/engine/engine.ts `#hasLiveEdge`, HodeTech/Relavium 839f2bd and
717bc97) runs a node when one dependency is live (a completed non-condition one, or a condition
that selected it) and skips it only when all are dead; `relavium-lsp run` reproduces that loop
(analysis/dryrun/runner.py `_live`, pinned in tests/analysis/dryrun/test_workflow_run.py). So for
every fixture and both bundled examples: on the dry run's path, the gated nodes of each branch
the condition did not take that still ran are exactly the ones the gating facts say run anyway,
and every finding names a node that ran although its branch was not taken.

With `RELAVIUM_ENGINE_RUN=<bundle.mjs>`, the same cases also run on the engine itself: a bundle
(built by whoever runs it, never kept here) of the engine's parser.ts, engine/engine.ts and
engine/execution-host.ts that, as `node BUNDLE FILE CHOICES INPUTS` (both JSON), starts a run
with an in-memory host and a stub executor completing every node, each condition selecting the
target CHOICES names, and prints `{"started": [...], "skipped": [...]}` (the node:started and
node:skipped ids). On the July snapshot (839f2bd) the engine dispatched and skipped exactly the
dry run's ran and skipped nodes in all nine cases (escalate dispatched in the broken example,
topic and escalate skipped in the fixed one).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from analysis.checks.analyze import analyze
from analysis.document.gating import BranchGate, branch_gates
from tests.conftest import EXAMPLES, FIXTURES, relavium_lsp

RULE_FIXTURES = sorted((FIXTURES / "rules" / "leaked-branch").glob("*.relavium.yaml"))
SAMPLES = EXAMPLES / "ticket-triage.samples.json"
CASES = [
    *((path, None) for path in RULE_FIXTURES),
    (EXAMPLES / "ticket-triage.relavium.yaml", SAMPLES),
    (EXAMPLES / "broken" / "ticket-triage-leak.relavium.yaml", SAMPLES),
]
RAN = {"ran", "pinned", "synthesized"}
CHOSE = re.compile(r'chose "([^"]+)"$')


def dry_run(path: Path, samples: Path | None) -> tuple[dict[str, str], dict[str, str]]:
    """Each node's status, and each condition's chosen target, from `relavium-lsp run`."""
    scope = ["--scope", str(samples)] if samples else []
    result = relavium_lsp("run", str(path), *scope, "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    nodes = json.loads(result.stdout)["nodes"]
    chosen = {entry["id"]: match.group(1) for entry in nodes
              if entry["type"] == "condition" and entry["status"] == "ran"
              and (match := CHOSE.search(entry.get("reason", "")))}
    return {entry["id"]: entry["status"] for entry in nodes}, chosen


def findings(path: Path) -> list[dict[str, object]]:
    result = relavium_lsp("check", "--no-config", "--format", "json", str(path))
    return [d["data"] for d in json.loads(result.stdout) if d["code"] == "leaked-branch"]


def not_taken(gates: list[BranchGate], chosen: dict[str, str]) -> list[BranchGate]:
    return [gate for gate in gates
            if gate.condition in chosen and chosen[gate.condition] != gate.target]


@pytest.mark.parametrize(("path", "samples"), CASES, ids=lambda case: getattr(case, "name", ""))
def test_the_gating_facts_agree_with_the_run_loop(path: Path, samples: Path | None) -> None:
    result = analyze(path.read_text(encoding="utf-8"), str(path))
    assert result.graph is not None
    status, chosen = dry_run(path, samples)
    routed_away = not_taken(branch_gates(result.graph), chosen)
    assert routed_away, "the dry run must route away from some branch"
    for gate in routed_away:
        ran = {node for node in gate.gated if status[node] in RAN}
        assert ran == gate.runs_anyway, gate.label


@pytest.mark.parametrize(("path", "samples"), CASES, ids=lambda case: getattr(case, "name", ""))
def test_a_finding_is_a_node_the_run_loop_runs_off_its_branch(
    path: Path, samples: Path | None
) -> None:
    status, chosen = dry_run(path, samples)
    found = findings(path)
    assert bool(found) == (path.name.startswith("positive") or path.parent.name == "broken")
    for data in found:
        assert chosen[str(data["condition"])] != data["target"]
        assert status[str(data["node"])] in RAN


ENGINE_RUN = os.environ.get("RELAVIUM_ENGINE_RUN")


@pytest.mark.skipif(not ENGINE_RUN, reason="set RELAVIUM_ENGINE_RUN to an engine run bundle")
@pytest.mark.parametrize(("path", "samples"), CASES, ids=lambda case: getattr(case, "name", ""))
def test_the_engine_dispatches_and_skips_what_the_dry_run_does(
    path: Path, samples: Path | None
) -> None:
    status, chosen = dry_run(path, samples)
    # the example's context reads the optional secret crm_token: the engine fails the run
    # before any node without it
    inputs = {**json.loads(samples.read_text("utf-8"))["inputs"], "crm_token": "t"} if samples \
        else {}
    engine = subprocess.run(["node", str(ENGINE_RUN), str(path), json.dumps(chosen),
                             json.dumps(inputs)], capture_output=True, text=True, timeout=120)
    assert engine.returncode == 0, engine.stderr
    events = json.loads(engine.stdout.splitlines()[-1])
    assert set(events["started"]) == {node for node, state in status.items() if state in RAN}
    assert set(events["skipped"]) == {node for node, state in status.items()
                                      if state == "skipped"}


def test_the_trap_names_the_branch_the_read_and_what_the_gate_does() -> None:
    text = (FIXTURES / "rules" / "leaked-branch" / "positive.relavium.yaml").read_text("utf-8")
    (diagnostic,) = analyze(text, "w.relavium.yaml").diagnostics
    assert diagnostic.message.startswith(
        "`escalate` is the target of branch route:urgent, but its `message_template` reads the "
        "output of `classify` (line 17, column 49)")
    assert "as a human gate it pauses those runs" in diagnostic.message
    assert diagnostic.data == {"condition": "route", "branch": ["urgent"], "target": "escalate",
                               "node": "escalate", "source": "classify", "edge": "data",
                               "field": "message_template", "enclosing": []}
    (related,) = diagnostic.related
    assert related.range.start.line == 11  # `target_node: escalate` in route's branch
    assert diagnostic.fixes == ()


ROUTED = """schema_version: '1.0'
workflow:
  id: demo
  nodes:
    - {{ id: start, type: input }}
    - id: other
      type: condition
      expression: '"x"'
      branches: [{{ when: x, target_node: side }}]
      default: elsewhere
    - {{ id: side, type: transform, transform: '1' }}
    - {{ id: elsewhere, type: transform, transform: '2' }}
    - id: route
      type: condition
      expression: '"normal"'
      branches:
        - {{ when: urgent, target_node: escalate }}
        - {{ when: normal, target_node: reply }}
    - id: escalate
      type: human_gate
      gate_type: approval
      message_template: 'About {{{{ run.outputs["{read}"] }}}}'
    - {{ id: reply, type: transform, transform: '"thanks"' }}
  edges:
    - {{ from: start, to: other }}
    - {{ from: start, to: route }}
    - {{ from: 'other:x', to: side }}
    - {{ from: 'route:urgent', to: escalate }}
    - {{ from: 'route:normal', to: reply }}
"""


def leaks(text: str) -> list[str]:
    return [d.message for d in analyze(text, "w.relavium.yaml").diagnostics
            if d.rule == "leaked-branch"]


def test_a_read_of_a_node_another_condition_decides_is_not_known_to_run() -> None:
    # `side` runs only if `other` chooses x: whether escalate then runs off its branch depends
    # on that choice, so it is not reported; `start` runs on every run, so it is
    assert leaks(ROUTED.format(read="side")) == []
    assert len(leaks(ROUTED.format(read="start"))) == 1


def test_a_cycle_gates_nothing() -> None:
    text = ROUTED.format(read="start").replace(
        "    - { from: start, to: route }\n",
        "    - { from: start, to: route }\n    - { from: escalate, to: start }\n")
    result = analyze(text, "w.relavium.yaml")
    assert result.graph is not None and result.graph.cycle is not None
    assert branch_gates(result.graph) == []


def test_a_branch_selected_by_several_handles_is_one_gate() -> None:
    result = analyze((FIXTURES / "rules" / "leaked-branch" / "positive-downstream.relavium.yaml")
                     .read_text("utf-8"), "w.relavium.yaml")
    assert result.graph is not None
    gates = {gate.label: gate for gate in branch_gates(result.graph)}
    assert set(gates) == {"route:urgent", "route:default"}
    assert gates["route:urgent"].gated == {"triage", "notify"}
    assert gates["route:urgent"].runs_anyway == {"notify"}


def test_a_read_in_the_agents_system_prompt_names_the_agent() -> None:
    text = ROUTED.format(read="side").replace(
        "  nodes:\n",
        "  agents:\n    - { id: pager, model: m, provider: anthropic,\n"
        "        system_prompt: 'Context {{ run.outputs[\"start\"] }}' }\n  nodes:\n", 1,
    ).replace("    - { id: reply, type: transform, transform: '\"thanks\"' }\n",
              "    - { id: reply, type: agent, agent_ref: pager }\n")
    (message,) = leaks(text)
    assert message.startswith("`reply` is the target of branch route:normal, but its agent "
                              "`pager`'s `system_prompt` reads the output of `start`")
    assert "human gate" not in message


def test_a_target_another_branch_leads_to_is_a_join_not_a_gate() -> None:
    # gate:true → shape → done, default done: done runs either way, as the edges say
    path = FIXTURES / "parity" / "branches" / "null-safe-uses.relavium.yaml"
    result = analyze(path.read_text(encoding="utf-8"), str(path))
    assert result.graph is not None
    assert [(gate.label, gate.gated) for gate in branch_gates(result.graph)] == [
        ("gate:true", frozenset({"shape"}))]


def test_a_read_past_nested_branches_is_one_finding_at_the_innermost() -> None:
    text = (FIXTURES / "rules" / "leaked-branch" / "positive-nested.relavium.yaml").read_text(
        "utf-8").replace('run.outputs["prepare"].ready', 'run.outputs["start"] | json')
    (diagnostic,) = analyze(text, "w.relavium.yaml").diagnostics
    assert diagnostic.data is not None
    assert (diagnostic.data["condition"], diagnostic.data["enclosing"]) == ("inner", ["outer:yes"])
    assert diagnostic.message.endswith("It bypasses the enclosing branch outer:yes too.")
