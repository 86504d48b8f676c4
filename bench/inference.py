"""Inference's share of `check`: the types of every evaluated expression (condition, transform,
custom merge_fn) of a generated 5,000-node workflow, against the full analysis of it; and the
same inference at 1,000 nodes, the keystroke budget's size.

`warm` is the steady state of a session or of a second file with the same expressions: each
text's compiled form is cached (`analysis.types.program`), an analysis pays for the evaluation
of types. `cold` clears that cache first (the first check of a file: each text is parsed and
compiled once more). The roots are one shared set for every node: the declared inputs, the
context as strings, and `run.outputs` with a type for each node's output (agents an open
object with `score` and `topic`, gates a decision record, others unknown) — the shape the
typed dataflow hands inference, without its cost.

    .venv/bin/python bench/inference.py

Times are CPU time of this process (`time.process_time`). Prints one table and exits 0; it
never asserts a timing.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.checks.analyze import analyze
from analysis.checks.collector import tune_collector
from analysis.checks.expression_sites import evaluated_fields
from analysis.document.model import Workflow
from analysis.schema.value_types import (
    AnyValue,
    NumberType,
    ObjectType,
    StringType,
    ValueType,
)
from analysis.types import infer
from tests.analysis.large_workflow import large_workflow

ROUNDS = 7
SIZES = (500, 100)  # blocks of ten nodes

_AGENT_OUTPUT = ObjectType((("score", NumberType()), ("topic", StringType())),
                           frozenset({"score"}), AnyValue())
_GATE_OUTPUT = ObjectType((("decision", StringType()),), frozenset({"decision"}), AnyValue())


def roots_of(workflow: Workflow) -> dict[str, ValueType]:
    outputs: tuple[tuple[str, ValueType], ...] = tuple(
        (node.id, _AGENT_OUTPUT if node.type == "agent" else
         _GATE_OUTPUT if node.type == "human_gate" else AnyValue())
        for node in workflow.nodes if node.id is not None)
    return {
        "inputs": ObjectType((("topic", StringType()), ("threshold", NumberType())),
                             frozenset({"topic"}), None),
        "ctx": ObjectType((("team", StringType()),), frozenset({"team"}), None),
        "run": ObjectType((("outputs", ObjectType(outputs, frozenset(), None)),),
                          frozenset({"outputs"}), None),
        "branches": AnyValue(),
    }


def timed(action: Callable[[], object]) -> float:
    """CPU time: the machine's other load moves it less than wall time."""
    gc.collect()
    start = time.process_time()
    action()
    return time.process_time() - start


def main() -> int:
    tune_collector()  # as the command line and the server do
    print(f"{'measure (CPU time)':<44}{'p50 ms':>10}{'share':>9}")
    for blocks in SIZES:
        text = large_workflow(blocks)
        result = analyze(text)
        assert result.workflow is not None
        sources = [field.value for _, field in evaluated_fields(result.workflow)]
        roots = roots_of(result.workflow)

        def infer_all(sources: list[str] = sources, roots: dict[str, ValueType] = roots) -> None:
            for source in sources:
                infer.text_type(source, roots)

        def infer_cold() -> None:
            infer._program.clear()
            infer_all()

        def analyze_all(text: str = text) -> None:
            analyze(text)

        full: list[float] = []
        warm: list[float] = []
        cold: list[float] = []
        for _ in range(ROUNDS):
            full.append(timed(analyze_all))
            cold.append(timed(infer_cold))
            warm.append(timed(infer_all))
        nodes = len(result.workflow.nodes)
        analysis = statistics.median(full)
        label = f"{nodes} nodes, {len(sources)} expressions"
        print(f"{'analyze, ' + label:<44}{analysis * 1e3:>10.1f}")
        for name, samples in (("inference, warm", warm), ("inference, cold", cold)):
            median = statistics.median(samples)
            print(f"{'  ' + name:<44}{median * 1e3:>10.1f}{median / analysis:>9.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
