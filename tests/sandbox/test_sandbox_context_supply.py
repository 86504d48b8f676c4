"""Contexts prepared ahead (issue 12): every evaluation still runs in a context nobody else used.

The next evaluation's runtime, driver and lockdown are prepared before they are asked for, by a
helper thread in-process and between requests in a worker. These tests hold that preparation to
the spec's "fresh context per evaluation": no context is handed out twice, no state planted by
one evaluation is seen by another (sequentially, from many threads, in a worker), and a context
prepared on another thread keeps the memory and stack caps.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from sandbox import SandboxError, Scope, WorkerPool, evaluate, vm
from sandbox.evaluator import prepare
from sandbox.vm import ContextSupply, run_request

# True only in a context no evaluation has touched: it checks for, then plants, a mark on the
# global object and on two shared prototypes.
FIRST_USE = """(() => {
  const untouched = typeof globalThis.planted === "undefined" && ({}).planted === undefined &&
    Array.prototype.planted === undefined;
  globalThis.planted = 1; Object.prototype.planted = 1; Array.prototype.planted = 1;
  return untouched;
})()"""


def test_sequential_evaluations_each_get_an_unused_context() -> None:
    assert [evaluate(FIRST_USE, "condition", Scope()) for _ in range(40)] == [True] * 40


def test_concurrent_evaluations_each_get_an_unused_context() -> None:
    with ThreadPoolExecutor(max_workers=6) as threads:
        verdicts = list(
            threads.map(lambda _: evaluate(FIRST_USE, "condition", Scope()), range(120))
        )
    assert verdicts == [True] * 120


def test_worker_evaluations_each_get_an_unused_context() -> None:
    with WorkerPool() as pool:
        assert [pool.evaluate(FIRST_USE, "condition", Scope()) for _ in range(20)] == [True] * 20


def test_the_supply_never_hands_out_a_context_twice() -> None:
    supply = ContextSupply()
    handed_out: list[object] = []  # kept alive, so no two distinct contexts share an identity
    lock = threading.Lock()

    def take_and_retire() -> None:
        for _ in range(15):
            context, _driver = supply.take()
            with lock:
                handed_out.append(context)
            supply.retire(context)

    workers = [threading.Thread(target=take_and_retire) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len({id(context) for context in handed_out}) == len(handed_out) == 60


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("(function f(n) { return f(n + 1) + 1 })(0)", "stack"),
        ("'x'.repeat(1 << 20).repeat(64)", "memory"),
    ],
)
def test_a_context_prepared_on_another_thread_keeps_the_caps(source: str, reason: str) -> None:
    supply = ContextSupply()
    helper = threading.Thread(target=supply.restock)
    helper.start()
    helper.join()
    prepared = supply._ready
    assert prepared is not None
    with pytest.raises(SandboxError) as caught:
        run_request(prepare(source, "transform", Scope()), "transform", supply=supply)
    assert caught.value.reason == reason
    assert supply._ready is not prepared  # the evaluation above ran in the helper's context


def test_the_helper_keeps_serving_after_an_unexpected_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = vm.locked_down_context
    calls = 0

    def fail_once() -> tuple[Any, Any]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise MemoryError
        return real()

    monkeypatch.setattr(vm, "locked_down_context", fail_once)
    supply = ContextSupply()
    supply.retire(vm.new_context())  # asks the helper, whose first build fails
    deadline = time.monotonic() + 30
    while calls < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    supply.retire(vm.new_context())  # asks again: a helper still serving prepares a context
    while supply._ready is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls >= 2 and supply._ready is not None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_evaluates_with_a_supply_of_its_own() -> None:
    assert evaluate("1 + 1", "transform", Scope()) == 2  # the helper thread is running now
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child, which reports by its exit status
        try:
            verdicts = [evaluate(FIRST_USE, "condition", Scope()) for _ in range(3)]
            os._exit(0 if verdicts == [True] * 3 else 1)
        finally:
            os._exit(2)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
