"""A warm pool starts its workers when it is made, so they import while its caller does other
work (`relavium-lsp run` analyses the file meanwhile); a pool made cold starts none until asked."""

from __future__ import annotations

import os
from pathlib import Path

from sandbox import Scope, WorkerPool


def children() -> set[int]:
    mine = str(os.getpid())
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended while listed
            if fields[1] == mine:
                found.add(int(entry.name))
    return found


def test_a_warm_pool_starts_every_worker_before_the_first_evaluation() -> None:
    before = children()
    with WorkerPool(2, warm=True) as pool:
        started = children() - before
        assert len(started) == 2
        assert pool.evaluate("inputs.a + 1", "transform", Scope(inputs={"a": 1})) == 2
        assert children() - before == started  # the evaluation used one of them
    assert not children() - before


def test_a_cold_pool_starts_no_worker_until_asked() -> None:
    before = children()
    with WorkerPool(2) as pool:
        assert not children() - before
        assert pool.evaluate("1", "transform", Scope()) == 1
        assert len(children() - before) == 1
