"""Sandbox latency: evaluate() vs a bare QuickJS context, the warm worker round trip, and the
parse-only syntax check, measured in one run on this machine (see bench/README.md).

Prints one table of p50/p95 in milliseconds plus the evaluate/bare ratio of medians. Never
asserts timings.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import quickjs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sandbox import Scope, WorkerPool, check_syntax, evaluate

ROUNDS = 400
WARMUP = 20
EXPRESSION = (
    "run.outputs.fetch.items.filter(item => item.score > inputs.threshold)"
    ".map(item => ({ id: item.id, title: item.title.toUpperCase(), tags: item.tags.length }))"
    ".slice(0, 10)"
)


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


def bare_quickjs(scope_json: str) -> Callable[[], object]:
    """The floor: a bare context, the same scope parsed and the same expression serialized."""
    script = (
        "(function (scope) { const inputs = scope.inputs, run = scope.run;"
        f" return JSON.stringify({EXPRESSION}); }})(JSON.parse({json.dumps(scope_json)}))"
    )

    def run() -> object:
        return quickjs.Context().eval(script)

    return run


def percentiles(action: Callable[[], object]) -> tuple[float, float]:
    for _ in range(WARMUP):
        action()
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    cuts = statistics.quantiles(samples, n=20)
    return statistics.median(samples), cuts[18]


def main() -> int:
    scope = realistic_scope()
    scope_json = json.dumps({"inputs": scope.inputs, "run": {"outputs": scope.run_outputs}})
    expected = evaluate(EXPRESSION, "transform", scope)
    assert json.loads(str(bare_quickjs(scope_json)())) == expected
    with WorkerPool() as pool:
        rows = {
            "evaluate (fresh runtime)": percentiles(
                lambda: evaluate(EXPRESSION, "transform", scope)
            ),
            "bare quickjs.Context + eval": percentiles(bare_quickjs(scope_json)),
            "worker round trip (warm)": percentiles(
                lambda: pool.evaluate(EXPRESSION, "transform", scope)
            ),
            "check_syntax": percentiles(lambda: check_syntax(EXPRESSION)),
        }
    print(f"scope {len(scope_json) / 1024:.1f} KB, {ROUNDS} rounds each")
    print(f"{'measurement':<30} {'p50 ms':>8} {'p95 ms':>8}")
    for name, (p50, p95) in rows.items():
        print(f"{name:<30} {p50:>8.3f} {p95:>8.3f}")
    ratio = rows["evaluate (fresh runtime)"][0] / rows["bare quickjs.Context + eval"][0]
    print(f"evaluate / bare (p50): {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
