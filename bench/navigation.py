"""Editor features on a generated 1,000-node workflow, against `analyze()` of the same text.

Each request a keystroke or a cursor move triggers is timed as the server computes it (without the
protocol): completion of `run.outputs["` in the last node (1,000 ancestors to filter), typed
completion after `run.outputs["x"].` there (the members of x's output type; each request derives
the types it reads afresh), the type line a hover over such a read adds, hover
and references of a node id, rename planning, semantic tokens of every expression, document
symbols and folding ranges, and the symbol index they share (built once per analysis). Rounds are
interleaved in one run; the ratio of each median to analyze()'s is the number to report. Prints
one table and exits 0; it never asserts a timing.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.checks.analyze import analyze
from analysis.ide.completion import complete
from analysis.ide.highlighting import expression_tokens
from analysis.ide.navigation import SymbolKind, build_index
from analysis.ide.outline import folds, outline
from analysis.ide.read_hover import read_hover
from analysis.ide.rename import plan_rename, rename_target
from analysis.ide.typed_reads import typed_reads
from bench.analysis import percentile, timed
from server.lsp.documents import Snapshot
from server.lsp.features.folding import folding_ranges
from server.lsp.features.semantic_tokens import encoded_tokens
from server.lsp.features.symbols import placed
from server.lsp.serving import View
from tests.analysis.large_workflow import large_workflow

ROUNDS = 20


def main() -> int:
    text = large_workflow(100)
    result = analyze(text)
    workflow = result.workflow
    assert workflow is not None
    view = View(Snapshot("file:///bench.relavium.yaml", 1, text, result, "utf-16"), text)
    # the cursor just after `run.outputs["` in the last node's transform
    typing_at = text.rindex('run.outputs["') + len('run.outputs["')
    # the last node reading `run.outputs["b99-left"].`: an output inferred from its transform
    member_read = 'run.outputs["b99-left"].'
    member_text = text.replace('run.outputs["b99-note"]', member_read[:-1] + ".")
    member_at = member_text.rindex(member_read) + len(member_read)
    # inside `score` of the last block's `run.outputs['b99-classify'].score`
    read_at = text.rindex("'].score") + len("'].sc")
    node_at = text.index("- id: b50-join") + len("- id: ")
    # a key being typed on a new line of a node in the middle of the file
    agent_ref = "      agent_ref: writer\n"
    key_line = text.index(agent_ref, len(text) // 2) + len(agent_ref)
    key_text = text[:key_line] + "      re\n" + text[key_line:]
    key_at = key_line + len("      re")

    index = build_index(workflow)

    def find_references() -> object:
        found = index.at(node_at)
        assert found is not None
        return index.references(SymbolKind.NODE, found.name)

    def rename() -> object:
        return plan_rename(index, rename_target(index, node_at), "b50-merge")

    measures: dict[str, Callable[[], object]] = {
        "analysis.analyze (baseline)": lambda: analyze(text),
        "symbol index (once per analysis)": lambda: build_index(workflow),
        "completion run.outputs[\"": lambda: complete(result, text, typing_at),
        "completion run.outputs[\"x\"]. typed": lambda: complete(result, member_text, member_at),
        "completion of a schema key": lambda: complete(result, key_text, key_at),
        "hover: a read's type line": lambda: read_hover(
            workflow, typed_reads(workflow, result.graph), read_at),
        "references of a node id": find_references,
        "rename plan": rename,
        "semantic tokens (full)": lambda: encoded_tokens(view, expression_tokens(result)),
        "document symbols": lambda: placed(view, outline(result)),
        "folding ranges": lambda: folding_ranges(view, folds(result)),
    }
    samples: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(ROUNDS):
        for name, action in measures.items():
            samples[name].append(timed(action))
    candidates = complete(result, text, typing_at)
    members = [candidate.label for candidate in complete(result, member_text, member_at)]
    typed_hover = read_hover(workflow, typed_reads(workflow, result.graph), read_at)
    assert typed_hover is not None
    print(f"workflow: {len(workflow.nodes)} nodes, {len(text.splitlines())} lines, "
          f"{len(index.occurrences)} symbol occurrences, {len(candidates)} completion "
          f"candidates, typed members {members}, hover {typed_hover[0]!r}; {ROUNDS} "
          "interleaved rounds")
    baseline = statistics.median(samples["analysis.analyze (baseline)"])
    print(f"{'measure':<36}{'p50 ms':>10}{'p95 ms':>10}{'/ analyze':>11}")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"{name:<36}{median * 1e3:>10.2f}{percentile(values, 0.95) * 1e3:>10.2f}"
              f"{median / baseline:>11.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
