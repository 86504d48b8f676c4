"""The evaluations of one step of a whole dry run, in flight together across the worker pool.

The run loop (`analysis.dryrun.runner`) claims up to `max_parallel` ready nodes at once, as the
engine's `#claimReady` does, and none of them reads another (each is ready only once all its
dependencies settled, and its scope holds its ancestors' outputs only). So every claimed node's
expression can be evaluated at once, and the loop still settles them one by one in claim order:
the same statuses, values and order as evaluating them one after another. With one worker there
is no thread: each evaluation runs when the loop reaches its node.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from analysis.document.model import NodeDef
from sandbox import Outcome, Scope, ScopeError

# (source, kind, scope) → the sandbox's answer: in process, or in the worker pool
Evaluate = Callable[[str, str, Scope], Outcome]
EVALUATED_TYPES = frozenset({"condition", "transform", "merge"})


def _timed(evaluate: Evaluate, source: str, kind: str, scope: Scope) -> tuple[Outcome, float]:
    started = time.perf_counter()
    outcome = evaluate(source, kind, scope)
    return outcome, time.perf_counter() - started


class Flights:
    def __init__(self, evaluate: Evaluate, workers: int) -> None:
        self._evaluate = evaluate
        # as many threads as workers: each waits on its own worker, none queues in the pool
        self._executor = (ThreadPoolExecutor(workers, thread_name_prefix="dry-run")
                          if workers > 1 else None)
        self._flying: dict[str, Future[tuple[Outcome, float]]] = {}

    def launch_step(
        self, claimed: list[tuple[str, NodeDef]], scope_for: Callable[[str], Scope]
    ) -> None:
        """Start the claimed nodes' evaluations together (serially: each when it is taken).
        `scope_for(id)` is already the scope the node sees when the loop reaches it, since a
        claimed node's ancestors have all settled."""
        if self._executor is None:
            return
        for node_id, node in claimed:
            if node.expression is None or node.type not in EVALUATED_TYPES or (
                node.type == "merge" and node.merge_strategy != "custom"
            ):
                continue
            try:
                scope = scope_for(node_id)
            except ScopeError:
                continue  # refused again, and reported, when the loop reaches the node
            self._flying[node_id] = self._executor.submit(
                _timed, self._evaluate, node.expression.value, node.expression.kind, scope
            )

    def take(
        self, node_id: str, source: str, kind: str, scope: Callable[[], Scope]
    ) -> tuple[Outcome, float]:
        """The node's outcome (`scope()` is built only for one not launched: it raises what
        building it raises) and how long the loop waited for it less the evaluation's own time
        (seconds; negative when the evaluation ran while the loop did other work)."""
        asked = time.perf_counter()
        flight = self._flying.pop(node_id, None)
        if flight is not None:
            outcome, took = flight.result()
        else:
            built = scope()
            asked = time.perf_counter()  # building the scope is the loop's own work
            outcome, took = _timed(self._evaluate, source, kind, built)
        return outcome, (time.perf_counter() - asked) - took

    def abandon(self) -> None:
        """The step ended early (a failure, a cancel, the budget): evaluations not yet started
        never start; those running end within the sandbox's own cap, unread."""
        for flight in self._flying.values():
            flight.cancel()
        self._flying.clear()

    def close(self) -> None:
        self.abandon()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
