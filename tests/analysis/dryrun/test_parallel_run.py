"""A whole dry run with a step's evaluations in flight together (`workers` > 1) answers exactly
what the serial run answers: the same nodes in the same order with the same statuses, values,
errors and reasons, the same notes and stored outputs. The order is the engine's: each step
claims up to `max_parallel` ready nodes in plan order (engine.ts `#claimReady` walks
`this.#plan.order`; `#step` dispatches the claimed vertices in that order — HodeTech/Relavium
packages/core/src/engine/engine.ts at 717bc97), and the run reports them settled in that order."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from analysis.checks.analyze import analyze
from analysis.dryrun.results import WorkflowRun
from analysis.dryrun.runner import run_workflow
from analysis.dryrun.samples import Samples, parse_samples
from sandbox import Outcome, Scope, WorkerPool, evaluate
from tests.analysis.dryrun.chained_workflow import SAMPLES, chained_workflow

INPUTS = parse_samples('{"inputs": {"level": 2}}', "samples.json", "explicit", is_json=True)


def jittered(seed: int) -> Any:
    """The in-process sandbox, each answer delayed a little at random: evaluations in flight
    together finish in a shuffled order."""
    delays = random.Random(seed)
    lock = threading.Lock()

    def evaluate_later(source: str, kind: str, scope: Scope) -> Outcome:
        with lock:
            delay = delays.random() * 0.004
        time.sleep(delay)
        return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]

    return evaluate_later


def random_workflow(seed: int) -> str:
    """A random DAG of transforms, conditions (two branches; an unmatched result fails the
    node), custom and concat merges and an output, some transforms failing at run time."""
    rng = random.Random(seed)
    count = rng.randint(8, 40)
    lines = ["schema_version: '1.0'", "workflow:", "  id: random",
             f"  max_parallel: {rng.choice([1, 2, 3, 8])}",
             "  inputs:", "    - { name: level, type: number }", "  nodes:",
             "    - { id: n0, type: input }"]
    edges: list[str] = []
    feeders = ["n0"]  # nodes a plain edge may leave: every one but a condition
    free = list(range(1, count))  # nodes no condition targets yet
    for i in range(1, count):
        preds = rng.sample(feeders, min(len(feeders), rng.randint(1, 3)))
        edges.extend(f"    - {{ from: {pred}, to: n{i} }}" for pred in preds)
        kind = rng.random()
        later = [j for j in free if j > i + 1]
        if kind < 0.2 and len(later) >= 2:
            targets = rng.sample(later, 2)
            for target in targets:
                free.remove(target)
            lines += [f"    - id: n{i}", "      type: condition",
                      f"      expression: '[\"x\", \"y\", \"z\"][(inputs.level + {i}) % "
                      f"{rng.choice([2, 3])}]'",
                      "      branches:",
                      f"        - {{ when: x, target_node: n{targets[0]} }}",
                      f"        - {{ when: y, target_node: n{targets[1]} }}"]
            edges += [f"    - {{ from: 'n{i}:x', to: n{targets[0]} }}",
                      f"    - {{ from: 'n{i}:y', to: n{targets[1]} }}"]
            continue
        if kind < 0.35:
            lines.append(f"    - {{ id: n{i}, type: merge, merge_strategy: custom, "
                         f"merge_fn: 'branches.length + {i}' }}")
        elif kind < 0.45:
            lines.append(f"    - {{ id: n{i}, type: merge, merge_strategy: concat }}")
        elif kind < 0.5:
            lines.append(f"    - {{ id: n{i}, type: transform, transform: 'null.x' }}")
        else:
            reads = " + ".join(f'(run.outputs["{pred}"] ? 1 : 0)' for pred in preds)
            lines.append(f"    - {{ id: n{i}, type: transform, transform: '{reads} + {i}' }}")
        feeders.append(f"n{i}")
    lines.append(f"    - {{ id: n{count}, type: output }}")
    edges.append(f"    - {{ from: {feeders[-1]}, to: n{count} }}")
    return "\n".join([*lines, "  edges:", *edges]) + "\n"


def whole(run: WorkflowRun) -> dict[str, Any]:
    """Everything a run answers but the time each node took."""
    answer = run.to_json()
    for node in answer["nodes"]:
        del node["ms"]
    return {"answer": answer, "outputs": run.outputs}


def both_ways(text: str, samples: Samples, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    result = analyze(text)
    assert result.workflow is not None and result.graph is not None
    assert result.graph.cycle is None
    serial = run_workflow(result.workflow, result.graph, jittered(seed), samples)
    parallel = run_workflow(result.workflow, result.graph, jittered(seed), samples, workers=4)
    return whole(serial), whole(parallel)


@pytest.mark.parametrize("seed", range(60))
def test_a_random_dag_runs_in_parallel_exactly_as_serially(seed: int) -> None:
    serial, parallel = both_ways(random_workflow(seed), INPUTS, seed)
    assert parallel == serial


def test_the_random_dags_reach_failures_skips_and_merges() -> None:
    """The generator is worth its name: the comparison above meets every status a run has."""
    seen: set[tuple[str, str]] = set()
    for seed in range(60):
        result = analyze(random_workflow(seed))
        assert result.workflow is not None and result.graph is not None
        run = run_workflow(result.workflow, result.graph, jittered(seed), INPUTS)
        seen |= {(node.type, node.status) for node in run.nodes}
    assert {("condition", "ran"), ("condition", "failed"), ("transform", "failed"),
            ("transform", "ran"), ("merge", "ran"), ("output", "ran")} <= seen
    assert {status for _, status in seen} >= {"skipped", "not-run", "failed", "ran"}


def test_the_chained_workflow_through_the_worker_pool_answers_as_in_process() -> None:
    text = chained_workflow(12, length=2)
    samples = parse_samples(SAMPLES, "samples.json", "explicit", is_json=True)
    result = analyze(text)
    assert result.workflow is not None and result.graph is not None
    serial = run_workflow(result.workflow, result.graph, jittered(0), samples)
    with WorkerPool(2) as pool:
        def pooled(source: str, kind: str, scope: Scope) -> Outcome:
            return pool.run(source, kind, scope, with_detail=True)  # type: ignore[arg-type]

        parallel = run_workflow(result.workflow, result.graph, pooled, samples, workers=2)
    assert serial.ok
    assert whole(parallel) == whole(serial)


def test_a_steps_evaluations_are_in_flight_together() -> None:
    """Eight independent chains: the first step after the input claims eight conditions, and
    with four workers four of them evaluate at once."""
    in_flight, most = 0, 0
    lock = threading.Lock()

    def counting(source: str, kind: str, scope: Scope) -> Outcome:
        nonlocal in_flight, most
        with lock:
            in_flight += 1
            most = max(most, in_flight)
        time.sleep(0.02)
        with lock:
            in_flight -= 1
        return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]

    result = analyze(chained_workflow(8, length=1))
    assert result.workflow is not None and result.graph is not None
    samples = parse_samples(SAMPLES, "samples.json", "explicit", is_json=True)
    run = run_workflow(result.workflow, result.graph, counting, samples, workers=4)
    assert run.ok
    assert most == 4


def test_a_cancel_with_evaluations_in_flight_stops_the_run_at_the_next_node() -> None:
    """Cancelled while a step's eight conditions are evaluating: at most the one the loop was
    already waiting for settles; the rest and everything after are `not-run`."""
    result = analyze(chained_workflow(8, length=1))
    assert result.workflow is not None and result.graph is not None
    samples = parse_samples(SAMPLES, "samples.json", "explicit", is_json=True)
    stop = threading.Event()
    calls = 0
    lock = threading.Lock()

    def cancelling(source: str, kind: str, scope: Scope) -> Outcome:
        nonlocal calls
        with lock:
            calls += 1
        stop.set()
        time.sleep(0.01)
        return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]

    run = run_workflow(result.workflow, result.graph, cancelling, samples, workers=4,
                       cancelled=stop.is_set)
    ran = [node.id for node in run.nodes if node.status == "ran"]
    assert ran in (["start"], ["start", "c0-route"])
    assert {node.reason for node in run.nodes if node.status == "not-run"} == {
        "the dry run was cancelled"
    }
    assert len(run.nodes) == 8 * 5 + 4  # every node is reported
    assert calls < 8  # the step's evaluations still queued never started


def test_the_run_budget_holds_with_evaluations_in_flight() -> None:
    result = analyze(chained_workflow(8, length=3))
    assert result.workflow is not None and result.graph is not None
    samples = parse_samples(SAMPLES, "samples.json", "explicit", is_json=True)

    def slow(source: str, kind: str, scope: Scope) -> Outcome:
        time.sleep(0.05)
        return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]

    started = time.monotonic()
    run = run_workflow(result.workflow, result.graph, slow, samples, workers=2, budget_s=0.12)
    assert time.monotonic() - started < 2  # not the ~1.3 s the 26 evaluations take serially
    reasons = {node.reason for node in run.nodes if node.status == "not-run"}
    assert reasons == {"the dry run's 0.12 s bound was reached"}
