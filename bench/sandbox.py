"""Sandbox latency: evaluate() vs a bare QuickJS context, the warm worker round trip, and the
parse-only syntax check, measured in one run on this machine (see bench/README.md).

Prints one table of p50/p95 in milliseconds plus the evaluate/bare ratio of medians, then where
one evaluation's time goes (runtime creation, lockdown, scope rebuild, evaluation,
serialisation, the host's own share), each stage as its p50 and as a ratio to the bare p50.
With `--engine-bundle PATH`, first measures ours against the engine's own sandbox: PATH is an
ES module bundle (built by you, under /tmp, never committed) of Relavium's
`packages/core/src/expression/sandbox.ts` with its two QuickJS packages
(`quickjs-emscripten-core`, `@jitl/quickjs-singlefile-mjs-release-sync`), exporting
`createExpressionSandbox`. It runs under `node`, one evaluation per request on a pipe, timed
inside Node around `evaluate()` alone; rounds alternate with ours, so the p50 ratio is of one run.
Never asserts timings.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sandbox import Scope, WorkerPool, check_syntax, evaluate, vm
from sandbox.evaluator import prepare
from sandbox.limits import TIME_LIMIT_MS
from sandbox.transport import decode

ROUNDS = 400
WARMUP = 20
EXPRESSION = (
    "run.outputs.fetch.items.filter(item => item.score > inputs.threshold)"
    ".map(item => ({ id: item.id, title: item.title.toUpperCase(), tags: item.tags.length }))"
    ".slice(0, 10)"
)


STAGES = (
    "host: check syntax + marshal scope",
    "runtime creation (context + caps)",
    "lockdown (compile driver, lock down)",
    "driver call: fixed cost",
    "scope rebuild (parse, freeze, records)",
    "evaluation (compile + run expression)",
    "serialisation (serializer + decode)",
    "runtime disposal",
)
# Done by the context supply's helper thread, not while the caller waits (sandbox/vm.py).
OFF_THE_LATENCY_PATH = frozenset(STAGES[1:3] + STAGES[-1:])


def realistic_scope() -> Scope:
    """About 20 KB of JSON: one upstream output listing 100 scored items."""
    items = [
        {
            "id": f"ticket-{index:04d}",
            "title": f"Customer report number {index} about the billing page",
            "score": (index * 37 % 100) / 100,
            "tags": ["billing", "web", "priority" if index % 3 else "normal"],
            "meta": {"source": "email", "retries": index % 4},
        }
        for index in range(100)
    ]
    return Scope(
        inputs={"threshold": 0.5},
        run_outputs={"fetch": {"items": items, "count": len(items)}},
    )


# The least a frozen scope costs, as the driver does it (sandbox/driver.js `deepFreeze`): each
# level's values are read, then its containers frozen; only containers go on to the next level.
# `WALK` is the same walk without the freezing, to tell finding the containers from freezing them.
WALK = """function deepFreeze(root) {
  for (let level = [root]; level.length > 0;) {
    const next = [];
    let count = 0;
    const size = level.length;
    for (let index = 0; index < size; index++) {
      const value = level[index];
      const children = Array.isArray(value) ? value : Object.values(value);
      const length = children.length;
      for (let child = 0; child < length; child++) {
        const item = children[child];
        if (typeof item === "object" && item !== null) next[count++] = item;
      }
      FREEZE
    }
    level = next;
  }
  return root;
}
"""
PRELUDES = {
    "none": "",
    "walk": WALK.replace("FREEZE", ""),
    "freeze": WALK.replace("FREEZE", "Object.freeze(value);"),
}


def scope_shape(value: object) -> tuple[int, int, int]:
    """Objects, arrays, and the values held in them, of a JSON value."""
    objects = arrays = values = 0
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            objects += 1
            children = list(item.values())
        elif isinstance(item, list):
            arrays += 1
            children = item
        else:
            continue
        values += len(children)
        pending.extend(children)
    return objects, arrays, values


def bare_quickjs(scope_json: str, prelude: str = "none") -> Callable[[], object]:
    """The floor: a bare context under the caps, the same scope parsed and the same expression
    serialized; the `freeze` prelude adds the contract's frozen scope (`walk`: finding its
    containers only), and nothing else of the sandbox."""
    parsed = f"JSON.parse({json.dumps(scope_json)})"
    script = PRELUDES[prelude] + (
        "(function (scope) { const inputs = scope.inputs, run = scope.run;"
        f" return JSON.stringify({EXPRESSION}); }})"
        + (f"(deepFreeze({parsed}))" if prelude != "none" else f"({parsed})")
    )

    def run() -> object:
        context = vm.new_context()
        context.set_time_limit(TIME_LIMIT_MS / 1000)
        return context.eval(script)

    return run


def locked_down(request: str) -> tuple[list[Any], float, float]:
    """[context, driver, request] ready for the driver call; creation and lockdown seconds."""
    start = time.perf_counter()
    context = vm.new_context()
    creation = time.perf_counter() - start
    driver = context.eval(vm.DRIVER)
    lockdown = time.perf_counter() - start - creation
    context.set_time_limit(TIME_LIMIT_MS / 1000)
    return [context, driver, request], creation, lockdown


def stage_breakdown(scope: Scope) -> dict[str, list[float]]:
    """Milliseconds per stage of one evaluation, per round, from the sandbox's own pieces.

    The driver rebuilds the scope and runs the expression in one native call, so those two are
    paired differences in fresh runtimes of the same round: the call with a trivial expression
    and no scope (its fixed cost), with the trivial expression and the scope, with the expression.
    """
    requests = {
        "fixed": prepare("0", "transform", Scope()),
        "scope": prepare("0", "transform", scope),
        "expression": prepare(EXPRESSION, "transform", scope),
    }
    stages: dict[str, list[float]] = {name: [] for name in STAGES}
    for round_index in range(WARMUP + ROUNDS):
        start = time.perf_counter()
        prepare(EXPRESSION, "transform", scope)
        marshal = time.perf_counter() - start
        calls = {}
        for name, request in requests.items():
            calls[name], creation, lockdown = locked_down(request)
        driver_call = {}
        for name, call in calls.items():
            start = time.perf_counter()
            call.append(call[1](call[2]))  # the driver's completion: the serializer
            driver_call[name] = time.perf_counter() - start
        start = time.perf_counter()
        decode(calls["expression"][3](), "transform")
        serialisation = time.perf_counter() - start
        held = calls.pop("expression")
        calls.clear()
        start = time.perf_counter()
        held.clear()  # the last references to that runtime
        disposal = time.perf_counter() - start
        if round_index < WARMUP:
            continue
        values = (
            marshal,
            creation,
            lockdown,
            driver_call["fixed"],
            driver_call["scope"] - driver_call["fixed"],
            driver_call["expression"] - driver_call["scope"],
            serialisation,
            disposal,
        )
        for name, value in zip(STAGES, values, strict=True):
            stages[name].append(value * 1000)
    return stages


def worker_pids() -> list[int]:
    """This process's live children: the pool's worker processes (Linux /proc)."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # a process that ended meanwhile
        if int(fields[1]) == os.getpid():
            pids.append(int(stat.parent.name))
    return pids


def workers_cpu_seconds(pids: list[int]) -> float:
    """CPU time of the processes `pids` (Linux /proc)."""
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime + stime
    return ticks / os.sysconf("SC_CLK_TCK")


# A worker's helper prepares its next context in about this time after answering.
WORKER_SETTLE_SECONDS = 0.005


def settle() -> None:
    """Wait (sleeping, so using no CPU) until the in-process context supply's helper thread has
    done what the last evaluation asked of it, so that its CPU time is counted for that one, and
    long enough for a worker's helper, so that neither overlaps the next measurement."""
    supply = vm.SUPPLY
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline and (
        supply._asked.is_set() or supply._building or supply._retired
    ):
        time.sleep(0.0002)
    time.sleep(WORKER_SETTLE_SECONDS)


def interleaved(
    actions: dict[str, tuple[Callable[[], object], list[int]]],
) -> dict[str, tuple[float, float, float, float]]:
    """Per action, in ms: p50 and p95 latency, p50 CPU of the calling thread (what latency is on
    an idle machine, less any wait for another thread), and mean CPU per call of this process's
    threads (the helper's included) and the worker processes `pids` that work for it alone. One
    round runs every action once, so a change in the machine's load hits them all alike and the
    ratios stay comparable."""
    walls: dict[str, list[float]] = {name: [] for name in actions}
    callers: dict[str, list[float]] = {name: [] for name in actions}
    cpus: dict[str, float] = dict.fromkeys(actions, 0.0)
    workers_start: dict[str, float] = {}
    for round_index in range(WARMUP + ROUNDS):
        if round_index == WARMUP:
            workers_start = {name: workers_cpu_seconds(pids) for name, (_, pids) in actions.items()}
        for name, (action, _) in actions.items():
            cpu_start = time.process_time()
            thread_start = time.thread_time()
            start = time.perf_counter()
            action()
            wall = time.perf_counter() - start
            caller = time.thread_time() - thread_start
            settle()
            cpu = time.process_time() - cpu_start
            if round_index >= WARMUP:
                walls[name].append(wall * 1000)
                callers[name].append(caller * 1000)
                cpus[name] += cpu * 1000
    for name, (_, pids) in actions.items():
        cpus[name] += (workers_cpu_seconds(pids) - workers_start[name]) * 1000
    return {
        name: (
            statistics.median(samples),
            statistics.quantiles(samples, n=20)[18],
            statistics.median(callers[name]),
            cpus[name] / ROUNDS,
        )
        for name, samples in walls.items()
    }


def back_to_back(action: Callable[[], object]) -> tuple[float, float]:
    """p50 latency and p50 caller-thread CPU, in ms, of calls made one right after another (the
    helper thread never gets a pause to prepare the next context in)."""
    walls, callers = [], []
    for round_index in range(WARMUP + ROUNDS):
        thread_start = time.thread_time()
        start = time.perf_counter()
        action()
        if round_index >= WARMUP:
            walls.append((time.perf_counter() - start) * 1000)
            callers.append((time.thread_time() - thread_start) * 1000)
    return statistics.median(walls), statistics.median(callers)


# Runs the engine's sandbox in Node: loads the bundle named by argv[1], reads the expression and
# scope as the first line of stdin, prints the engine's result, then for each further line runs
# `burst` evaluations back to back and prints the nanoseconds each `evaluate()` took (only that
# call: no pipe or parse in the figure). The first of a burst follows an idle wait, as ours does;
# the rest show the engine warm, in a loop of its own: the harder figure to beat.
ENGINE_HARNESS = """
import { createInterface } from "node:readline";
const { createExpressionSandbox } = await import(process.argv[1]);
const sandbox = await createExpressionSandbox();
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const { expression, scope, burst } = JSON.parse((await lines.next()).value);
const input = { expression, kind: "transform", scope };
process.stdout.write(JSON.stringify(sandbox.evaluate(input)) + "\\n");
for await (const _ of lines) {
  const took = [];
  for (let call = 0; call < burst; call++) {
    const start = process.hrtime.bigint();
    sandbox.evaluate(input);
    took.push(String(process.hrtime.bigint() - start));
  }
  process.stdout.write(took.join(" ") + "\\n");
}
"""


class EngineSandbox:
    """The engine's `createExpressionSandbox` in a Node process, one timed evaluation a call."""

    def __init__(self, bundle: Path, scope: Scope, burst: int) -> None:
        self._process = subprocess.Popen(
            ["node", "--input-type=module", "-e", ENGINE_HARNESS, str(bundle.resolve())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        # The engine's ExpressionScope: `outputs` is what its scope exposes as `run.outputs`.
        engine_scope = {"inputs": scope.inputs, "ctx": {}, "outputs": scope.run_outputs}
        self.node_version = subprocess.run(
            ["node", "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()
        self.result = json.loads(self._request(json.dumps(
            {"expression": EXPRESSION, "scope": engine_scope, "burst": burst}
        )))

    def _request(self, line: str) -> str:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(line + "\n")
        answer = self._process.stdout.readline()
        if not answer:
            raise SystemExit("the engine harness stopped: is PATH a bundle of sandbox.ts?")
        return answer

    def burst_ms(self) -> list[float]:
        """Milliseconds of each of the burst's evaluations, made back to back."""
        return [int(took) / 1e6 for took in self._request("").split()]

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait()


def versus_engine(bundle: Path, scope: Scope, expected: object, burst: int) -> None:
    """Ours against the engine's sandbox, rounds alternating: p50 and p95 of each, and the ratios
    to the engine after an idle wait (the first of its burst) and warm (the rest)."""
    engine = EngineSandbox(bundle, scope, burst)
    assert engine.result == expected, "the engine's sandbox disagrees with ours"
    samples: dict[str, list[float]] = {"ours": [], "after a wait": [], "warm": []}
    try:
        for round_index in range(WARMUP + ROUNDS):
            start = time.perf_counter()
            evaluate(EXPRESSION, "transform", scope)
            wall = (time.perf_counter() - start) * 1000
            settle()
            first, *warm = engine.burst_ms()
            if round_index >= WARMUP:
                samples["ours"].append(wall)
                samples["after a wait"].append(first)
                samples["warm"].extend(warm)
    finally:
        engine.close()
    ours = statistics.median(samples["ours"])
    print(f"against the engine's sandbox (Node {engine.node_version}; {ROUNDS} rounds,")
    print(f"alternating; each round: ours once, then the engine {burst} times back to back; ms):")
    for name, values in samples.items():
        p50, p95 = statistics.median(values), statistics.quantiles(values, n=20)[18]
        ratio = f"  ours / this {ours / p50:.3f}x" if name != "ours" else ""
        print(f"{name:<14} p50 {p50:>7.3f} p95 {p95:>7.3f}{ratio}")
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--engine-bundle",
        type=Path,
        help="an ES module bundle of the engine's expression/sandbox.ts (see the module docstring)",
    )
    parser.add_argument(
        "--engine-burst",
        type=int,
        default=4,
        help="engine evaluations per round, back to back (a large one: the engine at its warmest)",
    )
    options = parser.parse_args()
    scope = realistic_scope()
    scope_json = json.dumps({"inputs": scope.inputs, "run": {"outputs": scope.run_outputs}})
    expected = evaluate(EXPRESSION, "transform", scope)
    for prelude in PRELUDES:
        assert json.loads(str(bare_quickjs(scope_json, prelude)())) == expected
    if options.engine_bundle is not None:
        versus_engine(options.engine_bundle, scope, expected, options.engine_burst)
    frozen = bare_quickjs(scope_json, "freeze")
    scope_data = json.loads(scope_json)

    def spec_floor() -> object:
        # What the contract itself asks for on top of bare: the host's JSON encoding of the
        # scope (as Scope.vm_request does it) and the frozen scope.
        scope.vm_request("transform", "")
        return frozen()

    load = os.getloadavg()
    with WorkerPool() as pool:
        assert pool.evaluate(EXPRESSION, "transform", scope) == expected
        rows = interleaved({
            "evaluate (in-process)": (lambda: evaluate(EXPRESSION, "transform", scope), []),
            "bare quickjs.Context + eval": (bare_quickjs(scope_json), []),
            "bare + walk of the scope (no freeze)": (bare_quickjs(scope_json, "walk"), []),
            "bare + frozen scope": (frozen, []),
            "bare + frozen + host encoding (floor)": (spec_floor, []),
            "host: marshal the scope (vm_request)": (lambda: scope.vm_request("transform", ""), []),
            "worker round trip (warm)": (
                lambda: pool.evaluate(EXPRESSION, "transform", scope), worker_pids()
            ),
            "check_syntax": (lambda: check_syntax(EXPRESSION), []),
        })
        pairs = {
            "evaluate (in-process)": back_to_back(
                lambda: evaluate(EXPRESSION, "transform", scope)
            ),
            "worker round trip (warm)": back_to_back(
                lambda: pool.evaluate(EXPRESSION, "transform", scope)
            ),
        }
    stages = stage_breakdown(scope)
    bare = rows["bare quickjs.Context + eval"][0]
    print(
        f"scope {len(scope_json) / 1024:.1f} KB, {ROUNDS} rounds each (interleaved), "
        "load average " + " ".join(f"{value:.2f}" for value in load)
    )
    bare_caller = rows["bare quickjs.Context + eval"][2]
    bare_cpu = rows["bare quickjs.Context + eval"][3]
    columns = ("p50 ms", "p95 ms", "/ bare", "caller", "/ bare", "CPU ms", "/ bare")
    print(f"{'measurement':<40}" + "".join(f" {column:>8}" for column in columns))
    for name, (p50, p95, caller, cpu) in rows.items():
        values = (p50, p95, p50 / bare, caller, caller / bare_caller, cpu, cpu / bare_cpu)
        print(f"{name:<40}" + "".join(f" {value:>8.3f}" for value in values))
    print("caller: p50 CPU ms of the calling thread; CPU ms: mean per call of every thread of")
    print("this process plus the worker process (what one evaluation costs the machine)")
    objects, arrays, held = scope_shape(scope_data)
    walked = rows["bare + walk of the scope (no freeze)"][2]
    walk_us = (walked - bare_caller) * 1000
    freeze_us = (rows["bare + frozen scope"][2] - walked) * 1000
    print(
        f"the scope holds {objects} objects and {arrays} arrays with {held} values: finding"
        f" them {walk_us:.0f} us ({walk_us / held:.2f} per value), freezing them"
        f" {freeze_us:.0f} us ({freeze_us / (objects + arrays):.2f} per container), caller CPU"
    )
    print()
    print("back to back (each call right after the previous one returns; / bare p50 above):")
    for name, (p50, caller) in pairs.items():
        print(f"{name:<40} {p50:>8.3f} {'':>8} {p50 / bare:>8.3f} {caller:>8.3f}"
              f" {caller / bare_caller:>8.3f}")
    print()
    print("where one evaluation's time goes (p50 of each stage, same run; / bare p50; each driver")
    print("call follows the same work in two other fresh contexts, with warm caches: read the")
    print("stages as shares, the rows above as the cost)")
    total = waited = 0.0
    for name, samples in stages.items():
        p50 = statistics.median(samples)
        total += p50
        waited += 0.0 if name in OFF_THE_LATENCY_PATH else p50
        ahead = "  (helper thread, off the latency path)" if name in OFF_THE_LATENCY_PATH else ""
        print(f"{name:<40} {p50:>8.3f} {p50 / bare:>8.2f}x{ahead}")
    print(f"{'sum of stages (CPU of one evaluation)':<40} {total:>8.3f} {total / bare:>8.2f}x")
    print(f"{'sum on the latency path':<40} {waited:>8.3f} {waited / bare:>8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
