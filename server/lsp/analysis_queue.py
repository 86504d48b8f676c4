"""Threads of their own for the analyses run in the server process, smallest document first.

Analyses used to share pygls' thread pool with request handlers and the stdin reader, so a few
large documents could hold every thread and leave a hover on a small one unanswered for a minute.
Here they queue for `ANALYSIS_WORKERS` dedicated threads, ordered by the size of the text: a small
document's analysis never waits behind more than the large ones already running. A job is
given a `should_stop` check it passes to `analysis.analyze`, which stops at its next checkpoint
once the version it analyses is superseded (a queued job that is already superseded never starts).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

T = TypeVar("T")

# Two: a second document is analysed beside a large one instead of waiting for it to end.
ANALYSIS_WORKERS = 2


class AnalysisQueue:
    def __init__(self, workers: int = ANALYSIS_WORKERS) -> None:
        self._jobs: list[tuple[int, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._ready = threading.Condition()
        self._workers = workers
        self._started = False

    def submit(self, size: int, work: Callable[[], T]) -> asyncio.Future[T]:
        """Run `work` on an analysis thread (smaller `size` first); its result or exception
        arrives in the returned future. Called on the event loop."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def settle(outcome: Callable[[], Any]) -> None:
            if not future.done():
                outcome()

        def run() -> None:
            if future.cancelled():
                return
            try:
                result = work()
            except Exception as error:  # handed to the awaiting task, not lost in the thread
                loop.call_soon_threadsafe(settle, partial(future.set_exception, error))
            else:
                loop.call_soon_threadsafe(settle, partial(future.set_result, result))

        with self._ready:
            if not self._started:
                self._start()
            heapq.heappush(self._jobs, (size, next(self._order), run))
            self._ready.notify()
        return future

    def _start(self) -> None:
        self._started = True
        for index in range(self._workers):
            threading.Thread(target=self._work, name=f"analysis-{index}", daemon=True).start()

    def _work(self) -> None:
        while True:
            with self._ready:
                while not self._jobs:
                    self._ready.wait()
                _, _, run = heapq.heappop(self._jobs)
            run()
            # what the job held (an analysis's previous version) is not kept until the next job
            del run
