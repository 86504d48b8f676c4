"""`analyze` leaves the cyclic garbage collector alone: it is process-wide state, and toggling it
per call raced between threads so that it could stay off for good (issue 12, item 5)."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator

import pytest

from analysis.checks.analyze import analyze
from analysis.checks.collector import YOUNG_THRESHOLD, tune_collector
from analysis.document.text_cache import TextCache
from tests.analysis.large_workflow import large_workflow


@pytest.fixture
def collector() -> Iterator[None]:
    """Restore the collector's settings and the switch interval the test changes."""
    thresholds, enabled, interval = gc.get_threshold(), gc.isenabled(), sys.getswitchinterval()
    yield
    gc.set_threshold(*thresholds)
    gc.unfreeze()
    sys.setswitchinterval(interval)
    if enabled:
        gc.enable()


def test_the_collector_stays_on_while_an_analysis_runs(collector: None) -> None:
    gc.enable()
    text = large_workflow(30)
    seen_off = threading.Event()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if not gc.isenabled():
                seen_off.set()

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for _ in range(3):
            analyze(text)
    finally:
        done.set()
        watcher.join()
    assert not seen_off.is_set()


def test_concurrent_analyses_leave_the_collector_as_they_found_it(collector: None) -> None:
    tune_collector()
    settings = gc.get_threshold()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible, to interleave the calls
    texts = [large_workflow(1), "schema_version: [\n", large_workflow(2)]
    failures: list[BaseException] = []

    def work(index: int) -> None:
        try:
            for round_ in range(40):
                result = analyze(texts[(index + round_) % len(texts)])
                assert result.diagnostics is not None
        except BaseException as error:  # reported below, not lost in the thread
            failures.append(error)

    threads = [threading.Thread(target=work, args=(index,)) for index in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert gc.isenabled() and gc.get_threshold() == settings == (YOUNG_THRESHOLD, 20, 10)



@pytest.mark.parametrize(
    "text",
    [
        large_workflow(3),
        "schema_version: [\n",  # a syntax error
        # a finding of most kinds: unknown node, cycle, bad template, bad expression, alias
        "schema_version: '1.0'\nworkflow:\n  id: w\n  nodes:\n"
        "    - { id: a, type: transform, transform: 'run.outputs[\"b\"] +' }\n"
        "    - { id: b, type: agent, prompt_template: '{{ run.outputs.a | nope }}' }\n"
        "    - &x { id: c, type: condition, expression: 'eval(1)', default: zz }\n"
        "    - *x\n"
        "  edges:\n    - { from: a, to: b }\n    - { from: b, to: a }\n",
    ],
)
@pytest.mark.parametrize("caches", ["warm", "cold"])
def test_an_analysis_leaves_no_cyclic_garbage(collector: None, text: str, caches: str) -> None:
    """Its result goes by reference counting; objects that point back at their owner (a field
    at its node) made every analysis's tree garbage only the collector could free, which is
    what made it pause for so long at 5,000 nodes. Cold, every expression is analysed again:
    a scan holding a walk that held the scan's own method kept each expression's parse tree
    until a collection (54,000 objects after a cold 5,000-node check)."""
    analyze(text)  # warm the caches: what they keep is not garbage
    if caches == "cold":
        for cache in [found for found in gc.get_objects() if isinstance(found, TextCache)]:
            cache.clear()
    gc.collect()
    gc.disable()  # a collection in the middle would free the garbage this counts
    result = analyze(text)
    assert result.diagnostics or result.workflow is not None
    del result
    assert gc.collect() == 0
