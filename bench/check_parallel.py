"""`relavium-lsp check` on 200 generated workflow files: serial (`--jobs 1`) against the default
process pool (one worker per CPU), each a fresh `check` process as CI runs it.

The two run interleaved, ROUNDS times each, on the same files; the ratio of medians is the
speed-up to report. Prints one table and exits 0; it never asserts a timing.
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

from server.cli.check import cpu_count
from tests.analysis.large_workflow import large_workflow

FILES = 200
BLOCKS = 3  # 31 nodes a file: a realistic workflow, not a toy
ROUNDS = 5


def run_check(folder: Path, *options: str) -> float:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "server", "check", *options, str(folder)],
                            capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode != 0 or f"{FILES} files checked: 0 errors" not in result.stderr:
        raise SystemExit(f"check failed: {result.returncode} {result.stderr[-500:]}")
    return elapsed


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        text = large_workflow(BLOCKS)
        for index in range(FILES):
            (folder / f"flow-{index:03}.relavium.yaml").write_text(text, encoding="utf-8")
        serial: list[float] = []
        parallel: list[float] = []
        run_check(folder, "--jobs", "1")  # warm the file cache and the interpreter's pyc files
        for _ in range(ROUNDS):
            serial.append(run_check(folder, "--jobs", "1"))
            parallel.append(run_check(folder))
    serial_median, parallel_median = statistics.median(serial), statistics.median(parallel)
    # Other processes compete for the same CPUs: a load near or above the CPU count leaves a
    # pool nothing to gain, so the load is part of the result.
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"check of {FILES} files ({BLOCKS * 10 + 1} nodes each), {ROUNDS} rounds, "
          f"{cpu_count()} CPUs, load average {load:.1f} at the end")
    print(f"{'mode':<24}{'median s':>10}{'min s':>10}{'max s':>10}")
    for name, samples in (("serial (--jobs 1)", serial),
                          (f"parallel ({cpu_count()} jobs)", parallel)):
        print(f"{name:<24}{statistics.median(samples):>10.2f}{min(samples):>10.2f}"
              f"{max(samples):>10.2f}")
    print(f"speed-up (serial / parallel medians): {serial_median / parallel_median:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
