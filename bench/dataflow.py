"""What the typed dataflow (#23) adds to an analysis: the four typed checks (and the types they
derive: every read producer's output, the transforms' and conditions' inferred types) against
the same analysis without them.

- `check` of a generated 5,000-node workflow (target: the types add at most 25%), and of one
  dense in expressions (bench/dense_workflow.py: every node a transform or condition);
- a keystroke (one character of one transform changed) in a 1,000-node workflow, analysed
  incrementally as the server does (`analyze(…, previous=…)`; target: at most 50 ms compute).
Rounds interleave with and without, in one process on the same text; the ratio of medians is the
number to report. Prints one table and exits 0; it never asserts a timing.

The `check` rows above reuse the caches of earlier rounds (facts, compiled expressions, types):
`--first` measures a first analysis instead, each in a fresh process (the CPU time of `analyze`
alone: start-up and imports are the same with and without), both shapes, interleaved; with
`--against DIR` another tree's (git archive REV | tar -x -C DIR) in the same rounds.

`--keystroke` runs the keystroke row alone (a minute instead of several).

    .venv/bin/python bench/dataflow.py [--keystroke]
    .venv/bin/python bench/dataflow.py --first [--against DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import analysis.checks.analyze as analyze_module
import analysis.document.expressions.facts as facts_module
from analysis.checks.analyze import AnalysisResult, analyze
from analysis.checks.collector import tune_collector
from bench.analysis import percentile, timed
from bench.dense_workflow import dense_workflow
from tests.analysis.large_workflow import large_workflow

TYPED_RULES = ("unknown-output-property", "read-of-absent-value", "impossible-branch-value",
               "template-filter-type")
ROUNDS = 8
KEYSTROKES = 30
FIRST_ROUNDS = 3
SHAPES = ("generated", "dense")
THIS_TREE = Path(__file__).resolve().parent.parent


@contextmanager
def without_typed_checks() -> Iterator[None]:
    """The analysis without the typed rules, and without the types' compiler the facts' parse
    feeds (`PARSE_OBSERVERS`): its cost is the typed checks'."""
    every, observers = analyze_module.EMITTERS, list(facts_module.PARSE_OBSERVERS)
    analyze_module.EMITTERS = tuple(
        emitter for emitter in every
        if not any(emitter.name == f"rule {rule}" for rule in TYPED_RULES))
    facts_module.PARSE_OBSERVERS.clear()
    try:
        yield
    finally:
        analyze_module.EMITTERS = every
        facts_module.PARSE_OBSERVERS.extend(observers)


def paired(typed_action: Callable[[], object], untyped_action: Callable[[], object],
           rounds: int) -> tuple[list[float], list[float]]:
    """The first action timed with the typed checks, the second without, rounds interleaved."""
    typed: list[float] = []
    untyped: list[float] = []
    for _ in range(rounds):
        typed.append(timed(typed_action))
        with without_typed_checks():
            untyped.append(timed(untyped_action))
    return typed, untyped


def keystrokes(text: str) -> Callable[[], object]:
    """One incremental analysis per call, each a new version with one transform's text changed
    (a new expression text, as typing makes)."""
    marker = "score * 2 }"
    assert marker in text
    state: dict[str, object] = {"count": 0, "previous": analyze(text)}

    def step() -> AnalysisResult:
        count = int(str(state["count"])) + 1
        state["count"] = count
        edited = text.replace(marker, f"score * {count + 2} }}", 1)
        previous = state["previous"]
        assert isinstance(previous, AnalysisResult)
        result = analyze(edited, previous=previous)
        state["previous"] = result
        return result

    return step


def row(name: str, typed: list[float], untyped: list[float]) -> None:
    ratio = statistics.median(typed) / statistics.median(untyped)
    print(f"{name:<30}{statistics.median(untyped) * 1e3:>12.1f}"
          f"{statistics.median(typed) * 1e3:>12.1f}{percentile(typed, 0.95) * 1e3:>12.1f}"
          f"{(ratio - 1) * 100:>+10.1f}%")


# Run in a fresh process in the measured tree, so it names only what every tree has: the
# tree's own analysis, its generators, and the typed rules and observers taken out by hand.
FIRST_ANALYSIS = """
import sys, time
import analysis.checks.analyze as analyze_module
import analysis.document.expressions.facts as facts_module
from analysis.checks.analyze import analyze
try:
    from analysis.checks.collector import tune_collector
except ImportError:  # a tree from before it left analyze.py
    from analysis.checks.analyze import tune_collector
from bench.dense_workflow import dense_workflow
from tests.analysis.large_workflow import large_workflow
shape, typed, typed_emitters = sys.argv[1], sys.argv[2] == "typed", sys.argv[3:]
tune_collector()
text = {"generated": large_workflow, "dense": dense_workflow}[shape](500)
if not typed:
    analyze_module.EMITTERS = tuple(emitter for emitter in analyze_module.EMITTERS
                                    if emitter.name not in typed_emitters)
    getattr(facts_module, "PARSE_OBSERVERS", []).clear()
began = time.process_time()
analyze(text)
print(time.process_time() - began)
"""


def first_analyses(trees: dict[str, Path]) -> None:
    """`--first`: each tree's first analyses, with and without, one process each, interleaved."""
    samples: dict[tuple[str, str, bool], list[float]] = {}
    for _ in range(FIRST_ROUNDS):
        for shape in SHAPES:
            for name, tree in trees.items():
                for typed in (True, False):
                    output = subprocess.run(
                        [sys.executable, "-c", FIRST_ANALYSIS, shape,
                         "typed" if typed else "untyped", *(f"rule {r}" for r in TYPED_RULES)],
                        cwd=tree, check=True, text=True,
                        capture_output=True, env={**os.environ, "PYTHONPATH": str(tree)}).stdout
                    samples.setdefault((name, shape, typed), []).append(float(output))
    print(f"first analysis of 5,000 nodes, CPU s, {FIRST_ROUNDS} interleaved rounds, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'tree and shape':<30}{'without':>10}{'with':>10}{'added (each round)':>28}")
    for name in trees:
        for shape in SHAPES:
            typed, untyped = samples[name, shape, True], samples[name, shape, False]
            added = ", ".join(f"{(t / u - 1) * 100:+.0f}%" for t, u in zip(typed, untyped,
                                                                          strict=True))
            print(f"{name + ' ' + shape:<30}{statistics.median(untyped):>10.2f}"
                  f"{statistics.median(typed):>10.2f}"
                  f"{(statistics.median(typed) / statistics.median(untyped) - 1) * 100:>+9.1f}%"
                  f"  ({added})")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--first", action="store_true",
                        help="first analyses, each in a fresh process")
    parser.add_argument("--against", type=Path, help="another tree measured in the same rounds")
    parser.add_argument("--keystroke", action="store_true", help="the keystroke row alone")
    args = parser.parse_args()
    if args.first:
        trees = {"this tree": THIS_TREE}
        if args.against:
            trees["against"] = args.against.resolve()
        first_analyses(trees)
        return 0
    tune_collector()
    if args.keystroke:
        print(f"keystroke: 1,001 nodes; {KEYSTROKES} interleaved rounds")
        print(f"{'measure':<30}{'without ms':>12}{'with p50':>12}{'with p95':>12}{'added':>11}")
        keystroke_row()
        return 0
    big = large_workflow(500)
    typed_result = analyze(big)
    assert typed_result.workflow is not None
    found = sum(d.rule in TYPED_RULES for d in typed_result.diagnostics)
    print(f"check: {len(typed_result.workflow.nodes)} nodes, {found} typed findings; "
          f"keystroke: 1,001 nodes; {ROUNDS} / {KEYSTROKES} interleaved rounds")
    print(f"{'measure':<30}{'without ms':>12}{'with p50':>12}{'with p95':>12}{'added':>11}")
    row("check, 5,000 nodes", *paired(lambda: analyze(big), lambda: analyze(big), ROUNDS))
    dense = dense_workflow(500)
    row("check, 5,000 dense nodes", *paired(lambda: analyze(dense), lambda: analyze(dense),
                                            ROUNDS))
    keystroke_row()
    return 0


def keystroke_row() -> None:
    small = large_workflow(100)
    with_typed = keystrokes(small)
    with without_typed_checks():
        without = keystrokes(small)
    row("keystroke, 1,000 nodes", *paired(with_typed, without, KEYSTROKES))


if __name__ == "__main__":
    sys.exit(main())
