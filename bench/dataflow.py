"""What the typed dataflow (#23) adds to an analysis: the four typed checks (and the types they
derive: every read producer's output, the transforms' and conditions' inferred types) against
the same analysis without them.

- `check` of a generated 5,000-node workflow (target: the types add at most 25%), and of one
  dense in expressions (bench/dense_workflow.py: every node a transform or condition);
- a keystroke (one character of one transform changed) in a 1,000-node workflow, analysed
  incrementally as the server does (`analyze(…, previous=…)`; target: at most 50 ms compute).
Rounds interleave with and without, in one process on the same text; the ratio of medians is the
number to report. Prints one table and exits 0; it never asserts a timing.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import analysis.checks.analyze as analyze_module
import analysis.document.expressions.facts as facts_module
from analysis.checks.analyze import AnalysisResult, analyze, tune_collector
from bench.analysis import percentile, timed
from bench.dense_workflow import dense_workflow
from tests.analysis.large_workflow import large_workflow

TYPED_RULES = ("unknown-output-property", "read-of-absent-value", "impossible-branch-value",
               "template-filter-type")
ROUNDS = 8
KEYSTROKES = 30


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


def main() -> int:
    tune_collector()
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
    small = large_workflow(100)
    with_typed = keystrokes(small)
    with without_typed_checks():
        without = keystrokes(small)
    row("keystroke, 1,000 nodes", *paired(with_typed, without, KEYSTROKES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
