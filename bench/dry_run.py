"""Whole-workflow dry runs of generated 101- and 491-node workflows (blocks of ten nodes of the
test suite's generator: agents, conditions, gates, parallels, custom merges, transforms; every
block reads the one before, so a node's scope holds the outputs of all earlier blocks), measured
in one run on this machine (see bench/README.md): the run's time through the worker pool (as
`relavium-lsp run` and the server do) and in process, the time per evaluated node against one
`evaluate()` of a typical expression, and how the run grows from 101 to 491 nodes (a run stops
at 500 node starts, as the engine's does: ADR-0086 §4). Target: a 101-node run under 1 s.

Then whole processes, rounds interleaved (issue 26 item 2): `relavium-lsp run` of the chained
workflow (tests/analysis/dryrun/chained_workflow.py: 49 chains, 500 nodes, 451 starts; and 197
chains, 1,998 nodes, run past the engine's 500 starts with the limit lifted in that process only)
against a process making the same bare `evaluate()` calls one after another (the calls the run
makes, recorded first: same sources, kinds and scopes). Target: the run no slower (ratio ≤ 1).
Each process also reports the CPU time of its whole tree (workers and children included): on a
machine others load, a wall ratio is mostly their load. Both processes run as an installed
package does, with their modules' bytecode compiled once (in a temporary `PYTHONPYCACHEPREFIX`,
a warm-up run first): an environment with `PYTHONDONTWRITEBYTECODE` set would have every process
compile every module it imports, which `run` (some 300 modules) pays and the bare process
(the sandbox's few) hardly does. Never asserts timings.

    .venv/bin/python bench/dry_run.py                # this tree
    .venv/bin/python bench/dry_run.py --against DIR  # and another tree, in the same run
    .venv/bin/python bench/dry_run.py --whole [--against DIR]  # the whole processes only

Each tree runs in its own process (imports from that tree only): size by size, the trees one
after the other; the whole processes' rounds alternate between the trees too. A run that reaches
the 30 s bound of a dry run is flagged (its time is a floor).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import trees
from bench.bytecode import cached_bytecode
from tests.analysis.dryrun.chained_workflow import SAMPLES, chained_workflow

# Blocks of ten nodes (plus the input node), and how many runs the median is taken over: the
# larger stays under the engine's 500 node starts per run.
SIZES = {10: 7, 49: 3}

MEASURE = """
import inspect, json, statistics, sys, time
from analysis.checks.analyze import analyze
from analysis.dryrun.launch import pool_evaluator
from analysis.dryrun.runner import EVALUATED_TYPES, run_workflow
from analysis.dryrun.samples import parse_samples
from sandbox import Scope, WorkerPool, evaluate
from tests.analysis.large_workflow import large_workflow

SINGLE = "run.outputs['b1-classify'].score * 2 > 3 ? 'high' : 'low'"


def in_process(source, kind, scope):
    return evaluate(source, kind, scope, with_detail=True)


def timed(action, rounds):
    samples, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), result


found = {}
scope = Scope(run_outputs={"b1-classify": {"score": 2, "topic": "x"}})
found["one evaluate() (in process)"], _ = timed(lambda: evaluate(SINGLE, "condition", scope), 50)
# as `relavium-lsp run`: a worker per core, a step's evaluations in flight together (a tree
# older than that runs them one by one)
parallel = "workers" in inspect.signature(run_workflow).parameters
with WorkerPool(2) as pool:
    found["one worker round trip"], _ = timed(
        lambda: pool.run(SINGLE, "condition", scope), 50
    )
    for blocks, rounds in json.loads(sys.argv[1]):
        result = analyze(large_workflow(blocks))
        workflow, graph = result.workflow, result.graph
        # the agents answer with the shape the templates and expressions read
        pins = {f"b{i}-classify": {"score": i % 7, "topic": f"topic {i}"} for i in range(blocks)}
        samples = parse_samples(
            json.dumps({"inputs": {"topic": "refund"}, "outputs": pins}), "bench", "explicit",
            is_json=True,
        )
        pooled = pool_evaluator(pool)  # as `relavium-lsp run` and the server evaluate
        options = {"workers": pool.size} if parallel else {}
        pool_ms, run = timed(lambda: run_workflow(workflow, graph, pooled, samples, **options),
                             rounds)
        local_ms, _ = timed(lambda: run_workflow(workflow, graph, in_process, samples), rounds)
        assert run.ok, [n.to_json() for n in run.nodes if n.status == "failed"]
        evaluated = sum(1 for n in run.nodes if n.status == "ran" and n.type in EVALUATED_TYPES)
        size = f"{len(run.nodes):,} nodes"
        found[f"{size}: whole dry run, worker pool"] = pool_ms
        found[f"{size}: whole dry run, in process"] = local_ms
        found[f"{size}: per evaluated node, worker pool"] = pool_ms / evaluated
        found[f"{size}: per evaluated node, in process"] = local_ms / evaluated
        found[f"{size}: evaluated in the sandbox"] = evaluated
        # a run that reached the 30 s bound stops early: its time is a floor, not a figure
        found[f"{size}: not run"] = sum(1 for n in run.nodes if n.status == "not-run")
print(json.dumps(found))
"""


def measure(tree: Path, blocks: int, rounds: int) -> dict[str, float]:
    found: dict[str, float] = trees.run_in(tree, MEASURE, json.dumps([[blocks, rounds]]))
    return found


# chains → the chained workflow's size; rounds of the whole-process comparison
CHAINS = {49: 7, 197: 3}
LIFT_LIMIT = "import analysis.dryrun.runner as r; r.NODE_DISPATCHES_PER_RUN = 10 ** 9; "
RECORD = LIFT_LIMIT + """
import json, sys
from analysis.checks.analyze import analyze
from analysis.dryrun.samples import parse_samples
from sandbox import evaluate
path, samples_path, calls_path = sys.argv[1:]
result = analyze(open(path).read(), path)
samples = parse_samples(open(samples_path).read(), "bench", "explicit", is_json=True)
calls = []
def recording(source, kind, scope):
    calls.append([source, kind, scope.to_json()])
    return evaluate(source, kind, scope, with_detail=True)
run = r.run_workflow(result.workflow, result.graph, recording, samples)
assert run.ok, [n.to_json() for n in run.nodes if n.status == "failed"]
json.dump(calls, open(calls_path, "w"))
print(json.dumps(len(calls)))
"""
BARE = """
import json, sys
from sandbox import Scope, evaluate
for source, kind, scope in json.load(open(sys.argv[1])):
    evaluate(source, kind, Scope.from_json(scope))
"""
RUN = LIFT_LIMIT + """
import sys
from server.cli.main import program
sys.argv = ["relavium-lsp", "run", *sys.argv[1:]]
program()
"""


def children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed_process(tree: Path, argv: list[str], bytecode: Path) -> tuple[float, float]:
    """The process's wall time and the CPU time of its whole tree (seconds)."""
    env = cached_bytecode(bytecode, {**os.environ, "PYTHONPATH": str(tree)})
    cpu, start = children_cpu_s(), time.perf_counter()
    subprocess.run([sys.executable, *argv], env=env, cwd=tree, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, children_cpu_s() - cpu


def spread(values: list[float], unit: str) -> str:
    return (f"{min(values):.2f}-{max(values):.2f}{unit} (median "
            f"{statistics.median(values):.2f}{unit})")


def whole_processes(compared: dict[str, Path]) -> None:
    """`relavium-lsp run` against the same bare evaluate() calls, each a whole process."""
    with tempfile.TemporaryDirectory() as folder:
        samples = Path(folder, "samples.json")
        samples.write_text(SAMPLES)
        for chains, rounds in CHAINS.items():
            workflow, calls = Path(folder, f"c{chains}.yaml"), Path(folder, f"c{chains}.json")
            workflow.write_text(chained_workflow(chains))
            count = trees.run_in(trees.THIS, RECORD, str(workflow), str(samples), str(calls))
            nodes = 3 + chains * 10 + -(-chains // 8)
            run_argv = ["-c", RUN, str(workflow), "--scope", str(samples), "--format", "json"]
            bare_argv = ["-c", BARE, str(calls)]
            measured: dict[str, list[tuple[tuple[float, float], tuple[float, float]]]] = {
                name: [] for name in compared}
            for name, tree in compared.items():
                for argv in (run_argv, bare_argv):  # compiles what each imports, once
                    timed_process(tree, argv, Path(folder, f"bytecode-{name}"))
            for _ in range(rounds):  # interleaved, trees too: a load change hits all alike
                for name, tree in compared.items():
                    bytecode = Path(folder, f"bytecode-{name}")
                    measured[name].append((timed_process(tree, run_argv, bytecode),
                                           timed_process(tree, bare_argv, bytecode)))
            for name, pairs in measured.items():
                runs, bares = [run for run, _ in pairs], [bare for _, bare in pairs]
                print(f"{name}: {nodes:,} nodes ({count} evaluations), whole processes, "
                      f"{rounds} rounds: run {spread([r[0] for r in runs], ' s')}, bare serial "
                      f"evaluate() {spread([b[0] for b in bares], ' s')}; run / bare "
                      f"{spread([r[0] / b[0] for r, b in pairs], 'x')}, target <= 1; CPU run "
                      f"{spread([r[1] for r in runs], ' s')}, bare "
                      f"{spread([b[1] for b in bares], ' s')}, run / bare "
                      f"{spread([r[1] / b[1] for r, b in pairs], 'x')}")


def main() -> int:
    whole_only = "--whole" in sys.argv
    if whole_only:
        sys.argv.remove("--whole")  # the trees' own parser knows --against alone
    compared = trees.trees_from_arguments()
    if whole_only:
        print(f"load average {os.getloadavg()[0]:.2f} at the start")
        whole_processes(compared)
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
        return 0
    print(f"medians (runs per size: {', '.join(f'{b * 10 + 1:,}: {r}' for b, r in SIZES.items())})"
          f"; load average {os.getloadavg()[0]:.2f} at the start")
    results: dict[str, dict[str, float]] = {name: {} for name in compared}
    for blocks, rounds in SIZES.items():  # size by size, the trees one after the other
        for name, tree in compared.items():
            results[name].update(measure(tree, blocks, rounds))
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    header = f"{'measurement':<46}" + "".join(f"{name + ' ms':>14}" for name in results)
    print(header + (f"{'this/against':>14}" if len(results) > 1 else ""))
    for row in results["this"]:
        values = [found[row] for found in results.values()]
        ratio = f"{values[0] / values[1]:>14.2f}" if len(values) > 1 and values[1] else ""
        print(f"{row:<46}" + "".join(f"{value:>14.3f}" for value in values) + ratio)
    small, large = (f"{blocks * 10 + 1:,} nodes" for blocks in SIZES)
    fewest, most = (blocks * 10 + 1 for blocks in SIZES)
    times = most / fewest
    for name, found in results.items():
        single = found["one evaluate() (in process)"]
        growth = {mode: found[f"{large}: whole dry run, {mode}"]
                  / found[f"{small}: whole dry run, {mode}"]
                  for mode in ("worker pool", "in process")}
        per_node = found[f"{small}: per evaluated node, worker pool"] / single
        verdict = "under" if found[f"{small}: whole dry run, worker pool"] < 1000 else "OVER"
        stopped = [size for size in (small, large) if found[f"{size}: not run"]]
        if stopped:
            print(f"{name}: the run of {', '.join(stopped)} reached the 30 s bound (nodes not "
                  "run): its time is a floor")
        print(f"{name}: {large} / {small}: pool {growth['worker pool']:.1f}x, in process "
              f"{growth['in process']:.1f}x ({times:.1f}x the nodes); per node / one evaluate() at "
              f"{small}: pool {per_node:.2f}x; {small} run {verdict} the 1 s target")
    whole_processes(compared)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
