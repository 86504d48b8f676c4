"""Growth with size, whole processes: `relavium-lsp check` of generated clean workflows of 5,000
and 10,000 nodes, against a process that only composes the same YAML (`yaml.compose` with the
CSafeLoader). Targets (issue 12): check at 10,000 nodes at most 2.3x the time at 5,000, at most 3x
compose at 5,000; peak RSS linear too.

Rounds are interleaved in one run; ratios of medians are the numbers to report. Prints one table
and exits 0; it never asserts a timing.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.analysis.large_workflow import large_workflow

ROUNDS = 5
SIZES = (500, 1000)  # blocks of ten nodes
COMPOSE = "import sys, yaml; yaml.compose(open(sys.argv[1]).read(), Loader=yaml.CSafeLoader)"


def run(command: list[str]) -> tuple[float, int]:
    """Wall time and peak RSS (KiB) of one process."""
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - began, usage.ru_maxrss


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for blocks in SIZES:
            path = Path(folder) / f"n{blocks * 10}.relavium.yaml"
            path.write_text(large_workflow(blocks), encoding="utf-8")
            paths[blocks] = str(path)
        commands = {
            (kind, blocks): (
                [sys.executable, "-m", "server", "check", paths[blocks]]
                if kind == "check"
                else [sys.executable, "-c", COMPOSE, paths[blocks]]
            )
            for kind in ("check", "compose")
            for blocks in SIZES
        }
        times: dict[tuple[str, int], list[float]] = {key: [] for key in commands}
        peaks: dict[tuple[str, int], int] = dict.fromkeys(commands, 0)
        for _ in range(ROUNDS):
            for key, command in commands.items():
                elapsed, peak = run(command)
                times[key].append(elapsed)
                peaks[key] = max(peaks[key], peak)
    median = {key: statistics.median(samples) for key, samples in times.items()}
    print(f"{ROUNDS} interleaved rounds per process; nodes = blocks x 10 (+1)")
    print(f"{'process':<24}{'p50 s':>10}{'peak RSS MiB':>14}")
    for (kind, blocks), value in median.items():
        name = f"{kind} {blocks * 10} nodes"
        print(f"{name:<24}{value:>10.2f}{peaks[kind, blocks] / 1024:>14.0f}")
    small, large = SIZES
    growth = median["check", large] / median["check", small]
    print(f"check {large * 10} / {small * 10} nodes: {growth:.2f}x "
          f"(RSS {peaks['check', large] / peaks['check', small]:.2f}x)")
    print(f"check / compose at {small * 10} nodes: "
          f"{median['check', small] / median['compose', small]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
