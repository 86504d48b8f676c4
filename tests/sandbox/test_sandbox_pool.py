"""WorkerPool: hard kill at the deadline, respawn, fatal worker death, thread safety."""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sandbox import SandboxError, Scope, WorkerPool
from sandbox.evaluator import prepare
from sandbox.pool import _Worker
from sandbox.worker import ADDRESS_SPACE_LIMIT_BYTES, CPU_SECONDS_PER_EVALUATION


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    with WorkerPool() as workers:
        yield workers


def worker_pid(pool: WorkerPool) -> int:
    pool.evaluate("0", "transform", Scope())  # make sure one warm worker is idle
    return pool._idle[0].process.pid


@pytest.mark.parametrize(
    "source",
    [
        "new Array(2 ** 32 - 1).join()",
        "[].concat({ length: 2 ** 32 - 1, [Symbol.isConcatSpreadable]: true }).length",
    ],
)
def test_uninterruptible_native_loop_is_killed_as_a_retryable_timeout(
    pool: WorkerPool, source: str
) -> None:
    first = worker_pid(pool)
    started = time.monotonic()
    with pytest.raises(SandboxError) as caught:
        pool.evaluate(source, "transform", Scope())
    assert (caught.value.reason, caught.value.retryable) == ("timeout", True)
    assert time.monotonic() - started < pool.deadline_s + 2
    assert pool.evaluate("inputs.a + 1", "transform", Scope(inputs={"a": 1})) == 2
    assert worker_pid(pool) != first


def test_worker_death_mid_evaluation_is_fatal_and_the_next_evaluation_works(
    pool: WorkerPool,
) -> None:
    pid = worker_pid(pool)
    threading.Timer(0.3, os.kill, (pid, signal.SIGKILL)).start()
    with pytest.raises(SandboxError) as caught:
        pool.evaluate("(() => { for (;;) {} })()", "transform", Scope())
    assert (caught.value.reason, caught.value.retryable) == ("memory", False)
    assert pool.evaluate("'alive'", "transform", Scope()) == "alive"


def test_worker_that_died_while_idle_is_replaced_silently(pool: WorkerPool) -> None:
    os.kill(worker_pid(pool), signal.SIGKILL)
    pool._idle[0].process.wait()
    assert pool.evaluate("2 * 21", "transform", Scope()) == 42


def test_worker_address_space_is_capped(pool: WorkerPool) -> None:
    limits = Path(f"/proc/{worker_pid(pool)}/limits").read_text()
    line = next(line for line in limits.splitlines() if line.startswith("Max address space"))
    assert line.split()[3] == str(ADDRESS_SPACE_LIMIT_BYTES)  # the soft limit is enforced


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time (also readable while it is a zombie)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


# The worker must burn its CPU seconds, which on a loaded machine takes many wall seconds.
@pytest.mark.timeout(600)
def test_orphaned_worker_stuck_in_a_native_loop_is_stopped_by_its_cpu_limit() -> None:
    worker = _Worker()
    request = prepare("new Array(2 ** 32 - 1).join()", "transform", Scope())
    assert worker.call("transform", request, 0.2) is None
    # Nobody kills it now (as if the pool's process had died): the kernel must, once it has used
    # its CPU seconds. Judged by the CPU time it burns, not the wall time that takes: on a
    # loaded machine a worker gets a fraction of a core and needs many more wall seconds.
    pid = worker.process.pid
    # The worker's limit is what it had used when the request came, rounded up, plus the
    # allowance; it has used at least that much by now. Half a second covers the clock's ticks.
    limit = math.ceil(cpu_seconds(pid)) + CPU_SECONDS_PER_EVALUATION + 0.5
    while worker.process.poll() is None:
        used = cpu_seconds(pid)
        assert used <= limit, f"the worker ran on past its CPU limit ({used:.1f} s)"
        time.sleep(0.05)
    assert worker.process.returncode == -signal.SIGXCPU
    worker.kill()


def test_concurrent_callers_share_a_bounded_pool() -> None:
    with WorkerPool(size=2) as pool:

        def square(n: int) -> object:
            return pool.evaluate("inputs.n * inputs.n", "transform", Scope(inputs={"n": n}))

        with ThreadPoolExecutor(max_workers=5) as callers:
            results = list(callers.map(square, range(40)))
        assert results == [n * n for n in range(40)]
        assert len(pool._idle) <= 2


def test_errors_cross_the_process_boundary_intact(pool: WorkerPool) -> None:
    with pytest.raises(SandboxError) as caught:
        pool.evaluate("(() => { throw new Error('inner') })()", "transform", Scope())
    assert (caught.value.reason, caught.value.detail) == ("runtime", "Error: inner")
    scope = Scope(inputs={"key": "s3cr3t"}, secret_inputs=frozenset({"key"}))
    outcome = pool.run("inputs.key", "condition", scope)
    assert outcome.error is not None and outcome.error.reason == "secret_context"
    assert outcome.error.detail is None


def test_syntax_and_non_json_scope_never_reach_a_worker(pool: WorkerPool) -> None:
    assert pool.run("1 +", "transform", Scope()).to_json()["error"]["reason"] == "syntax"
    outcome = pool.run("1", "transform", Scope(inputs={"d": float("nan")}))
    assert outcome.error is not None and outcome.error.reason == "scope"
    assert pool._started == 0


def test_close_stops_the_workers() -> None:
    pool = WorkerPool()
    pid = worker_pid(pool)
    pool.close()
    assert not Path(f"/proc/{pid}").exists()
    with pytest.raises(RuntimeError):
        pool.evaluate("1", "transform", Scope())


def test_large_results_cross_the_pipe_whole(pool: WorkerPool) -> None:
    text = pool.evaluate("'ab'.repeat(3 << 19) + 'é'", "transform", Scope())
    assert len(text) == 3 << 20 | 1 and text.endswith("abé")
    numbers = pool.evaluate("Array.from({ length: 100000 }, (_, i) => i)", "transform", Scope())
    assert numbers == list(range(100000))
