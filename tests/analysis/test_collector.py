"""`analyze` leaves the cyclic garbage collector alone: it is process-wide state, and toggling it
per call raced between threads so that it could stay off for good (issue 12, item 5)."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator

import pytest

from analysis import analyze, tune_collector
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
    assert gc.isenabled() and gc.get_threshold() == settings == (50_000, 20, 10)

