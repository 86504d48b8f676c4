"""The collector settings of a program that analyses: kept apart from `analyze` so that a
command that never analyses in its own process (`run`'s parent) sets them without importing the
checks."""

from __future__ import annotations

import gc


def tune_collector() -> None:
    """Process-wide collector settings for a program that analyses (the CLI and the server call
    this once after start-up; calling it again also freezes what was imported since).

    An analysis holds hundreds of thousands of small objects at its peak (about 100 per
    workflow node: libyaml's node tree, the positioned tree, the model) and leaves no cyclic
    garbage: its result is freed by reference counting (tests/analysis/checks/test_collector.py
    keeps it so). The collector's young generation counts objects allocated and not yet freed,
    so with a first threshold of `YOUNG_THRESHOLD` it seldom runs during an analysis of up to
    ~5,000 nodes, and when it does it no longer walks earlier analyses' garbage; with the
    default 700 (or the former 50,000) it walked each analysis's live tree several times, and
    every twentieth pass walked all of them — the p95 spikes of bench/lsp.py at 5,000 nodes.
    Cycles made elsewhere are still reclaimed, once that many objects have piled up. Freezing
    start-up objects takes them out of every full pass. Nothing is toggled per call:
    concurrent analyses cannot leave the collector off.
    """
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, 20, 10)


YOUNG_THRESHOLD = 500_000
