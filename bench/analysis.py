"""Full analysis of a generated 1,000-node workflow against `yaml.compose` (CSafeLoader) alone.

Both run interleaved in one process on the same text; the ratio of medians is the number to
report (target: at most 3x). Prints one table and exits 0; it never asserts a timing.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.checks.analyze import analyze
from analysis.checks.collector import tune_collector
from tests.analysis.large_workflow import large_workflow

ROUNDS = 30


def timed(action: Callable[[], object]) -> float:
    # Collect the previous round's garbage first, so neither side pays for the other's.
    gc.collect()
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    tune_collector()  # as the command line and the server do
    text = large_workflow(100)
    result = analyze(text)
    assert result.workflow is not None
    compose: list[float] = []
    full: list[float] = []
    for _ in range(ROUNDS):
        compose.append(timed(lambda: yaml.compose(text, Loader=yaml.CSafeLoader)))
        full.append(timed(lambda: analyze(text)))
    print(f"workflow: {len(result.workflow.nodes)} nodes, {len(text.splitlines())} lines, "
          f"{len(result.diagnostics)} diagnostics; {ROUNDS} interleaved rounds")
    print(f"{'measure':<34}{'p50 ms':>10}{'p95 ms':>10}")
    for name, samples in (("yaml.compose(CSafeLoader)", compose), ("analysis.analyze", full)):
        print(f"{name:<34}{statistics.median(samples) * 1e3:>10.1f}"
              f"{percentile(samples, 0.95) * 1e3:>10.1f}")
    ratio = statistics.median(full) / statistics.median(compose)
    print(f"{'ratio analyze / compose (p50)':<34}{ratio:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
