"""How long one analysis keeps every other thread of its process waiting for the interpreter
lock (issue 12, item 4): a thread that sleeps 1 ms at a time records its longest wait while
`analyze()` runs on another, with the language server's 0.5 ms switch interval. Native calls
that hold the lock (a tree-sitter parse of a garbled expression, a collector pass) show up as
long waits; pure Python hands the lock over every 0.5 ms.

    .venv/bin/python bench/gil_hold.py                 # this tree
    .venv/bin/python bench/gil_hold.py --against DIR   # and another tree, in the same run

Each tree's cases run in a fresh process. Prints one table and exits 0; it never asserts a
timing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import trees

MEASURE = r"""
import json, sys, threading, time
from analysis.checks.analyze import analyze
from analysis.checks.collector import tune_collector
from tests.analysis.large_workflow import large_workflow
tune_collector()
sys.setswitchinterval(0.0005)
HEAD = ("schema_version: '1.0'\nworkflow:\n  id: hold\n  nodes:\n"
        "    - { id: start, type: input }\n")
def transform(expression):
    lines = "".join("        " + line + "\n" for line in expression.split("\n"))
    return HEAD + "    - id: t\n      type: transform\n      transform: |\n" + lines
CASES = {
    "garbled 32 KiB expression": transform("([{(" * 8000),
    "[()=>{{}},…] 32 KiB": transform("[()=>{{}}," * 3200),
    "1,000 nodes": large_workflow(100),
    "5,000 nodes": large_workflow(500),
}
analyze(transform("1"))
found = {}
for name, text in CASES.items():
    waits, stop = [], threading.Event()
    def sleeper():
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.001)
            now = time.perf_counter()
            waits.append(now - last)
            last = now
    thread = threading.Thread(target=sleeper)
    thread.start()
    time.sleep(0.01)
    began = time.perf_counter()
    analyze(text)
    took = time.perf_counter() - began
    stop.set()
    thread.join()
    found[name] = [took, max(waits)]
print(json.dumps(found))
"""


def measure(tree: Path) -> dict[str, list[float]]:
    found: dict[str, list[float]] = trees.run_in(tree, MEASURE)
    return found


def main() -> int:
    compared = trees.trees_from_arguments()
    print(f"longest wait of a 1 ms sleeper thread during one analyze(); load average "
          f"{os.getloadavg()[0]:.2f}")
    print(f"{'tree':<9}{'document':<28}{'analysis ms':>12}{'longest wait ms':>16}")
    for name, tree in compared.items():
        for document, (took, wait) in measure(tree).items():
            print(f"{name:<9}{document:<28}{took * 1000:>12.0f}{wait * 1000:>16.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
