"""Whole-workflow dry run of a generated 101-node workflow (10 blocks of the test suite's
generator: agents, conditions, gates, parallels, custom merges, transforms), measured in one run
on this machine (see bench/README.md): the run's time through the worker pool (as
`relavium-lsp run` and the server do) and in process, and the time per evaluated node against
one `evaluate()` of a typical expression. Target: a whole run under 1 s. Never asserts timings.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis import analyze
from analysis.sample_scope import parse_samples
from analysis.workflow_run import EVALUATED_TYPES, WorkflowRun, run_workflow
from sandbox import Outcome, Scope, WorkerPool, evaluate
from server.dry_run import pool_evaluator
from tests.analysis.large_workflow import large_workflow

ROUNDS = 7
BLOCKS = 10
SINGLE = "run.outputs['b1-classify'].score * 2 > 3 ? 'high' : 'low'"


def in_process(source: str, kind: str, scope: Scope) -> Outcome:
    return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]


def timed(action: Callable[[], object], rounds: int = ROUNDS) -> tuple[float, object]:
    samples, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), result


def main() -> int:
    result = analyze(large_workflow(BLOCKS))
    assert result.workflow is not None and result.graph is not None
    workflow, graph = result.workflow, result.graph
    # the agents answer with the shape the templates and expressions read
    pins = {f"b{i}-classify": {"score": i % 7, "topic": f"topic {i}"} for i in range(BLOCKS)}
    samples = parse_samples(
        json.dumps({"inputs": {"topic": "refund"}, "outputs": pins}), "bench", "explicit",
        is_json=True,
    )
    scope = Scope(run_outputs={"b1-classify": {"score": 2, "topic": "x"}})
    single_ms, _ = timed(lambda: evaluate(SINGLE, "condition", scope), 50)
    with WorkerPool() as pool:
        pooled = pool_evaluator(pool)  # as `relavium-lsp run` and the server evaluate
        pool_ms, run = timed(lambda: run_workflow(workflow, graph, pooled, samples))
        round_trip_ms, _ = timed(lambda: pool.run(SINGLE, "condition", scope), 50)
    local_ms, _ = timed(lambda: run_workflow(workflow, graph, in_process, samples))
    assert isinstance(run, WorkflowRun) and run.ok, [n for n in run.nodes if n.status == "failed"]
    evaluated = sum(
        1 for node in run.nodes if node.status == "ran" and node.type in EVALUATED_TYPES
    )
    statuses = {status: sum(1 for n in run.nodes if n.status == status)
                for status in sorted({n.status for n in run.nodes})}
    print(f"{len(run.nodes)} nodes, {evaluated} evaluated in the sandbox, {statuses}, "
          f"median of {ROUNDS} runs")
    print(f"{'measurement':<40} {'ms':>9}")
    rows = {
        "whole dry run, worker pool": pool_ms,
        "whole dry run, in process": local_ms,
        "per evaluated node, worker pool": pool_ms / evaluated,
        "per evaluated node, in process": local_ms / evaluated,
        "one evaluate() (in process)": single_ms,
        "one worker round trip": round_trip_ms,
    }
    for name, value in rows.items():
        print(f"{name:<40} {value:>9.3f}")
    print(f"per node / one evaluate(): pool {pool_ms / evaluated / single_ms:.2f}x, "
          f"in process {local_ms / evaluated / single_ms:.2f}x; "
          f"whole run {'under' if pool_ms < 1000 else 'OVER'} the 1 s target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
