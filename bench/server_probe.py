"""Loaded into a server under benchmark (`bench/starve.py`, `bench/burst.py`): records what keeps
requests waiting, and writes it as JSON to $RELAVIUM_PROBE_OUT when the server exits.

- `collections`: every cyclic-collector run (start, generation, seconds) — it holds the
  interpreter lock throughout, stopping every thread;
- `held`: gaps over 3 ms seen by a thread that sleeps 1 ms at a time: how long it could not get
  the interpreter lock (native calls, collections, other threads' turns);
- `loop_lags`: how late a callback due every 5 ms ran on the event loop;
- `analyses`: the server-process analyses (start, seconds, characters, whether stopped);
- `jobs`: analysis-process jobs (start, seconds, characters, whether stopped — a job whose
  worker was killed never answers), where the server has one (server/lsp/worker/client.py).

perf_counter is CLOCK_MONOTONIC on Linux, so times compare with the client's.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import json
import os
import threading
import time
from typing import Any

import server.lsp.language_server as language_server
import server.lsp.session as session

collections: list[tuple[float, int, float]] = []
held: list[tuple[float, float]] = []
loop_lags: list[tuple[float, float]] = []
analyses: list[tuple[float, float, int, bool]] = []
jobs: list[tuple[float, float, int, bool]] = []
_collection_began: dict[int, float] = {}


def _on_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _collection_began[threading.get_ident()] = time.perf_counter()
    elif (began := _collection_began.pop(threading.get_ident(), None)) is not None:
        collections.append((began, info["generation"], time.perf_counter() - began))


def _sleeper() -> None:
    last = time.perf_counter()
    while True:
        time.sleep(0.001)
        now = time.perf_counter()
        if now - last > 0.003:
            held.append((last, now - last))
        last = now


async def _watch_loop() -> None:
    while True:
        due = time.perf_counter() + 0.005
        await asyncio.sleep(0.005)
        if (late := time.perf_counter() - due) > 0.003:
            loop_lags.append((due, late))


_serve = language_server.serve
_analyze = language_server.analyze


async def _serve_watched(*args: Any, **kwargs: Any) -> None:
    watcher = asyncio.ensure_future(_watch_loop())
    try:
        await _serve(*args, **kwargs)
    finally:
        watcher.cancel()


def _analyze_watched(text: str, *args: Any, **kwargs: Any) -> Any:
    began = time.perf_counter()
    stopped = True
    try:
        result = _analyze(text, *args, **kwargs)
        stopped = False
        return result
    finally:
        analyses.append((began, time.perf_counter() - began, len(text), stopped))


def _watch_jobs() -> None:
    """Wrap the analysis process's send and answer, when this tree has one."""
    try:
        from server.lsp.worker import client
    except ImportError:
        return
    worker = getattr(client, "_Worker", None)
    process = getattr(client, "AnalysisProcess", None)
    if worker is None or process is None:
        return
    started: dict[int, tuple[float, int]] = {}
    send, answered = worker.send, process._answered

    def send_watched(self: Any, message: tuple[Any, ...]) -> None:
        if message[0] == "analyze":
            started[message[1]] = (time.perf_counter(), len(message[2]))
        send(self, message)

    def answered_watched(self: Any, source: Any, answer: tuple[Any, ...]) -> None:
        if (begun := started.pop(answer[0], None)) is not None:
            jobs.append((begun[0], time.perf_counter() - begun[0], begun[1],
                         answer[1] == "stopped"))
        answered(self, source, answer)

    def killed() -> None:
        jobs.extend((began, 0.0, size, True) for began, size in started.values())

    worker.send = send_watched
    process._answered = answered_watched
    atexit.register(killed)  # registered after `_write`, so it runs before it


def _write() -> None:
    with open(os.environ["RELAVIUM_PROBE_OUT"], "w") as out:
        json.dump({"collections": collections, "held": held, "loop_lags": loop_lags,
                   "analyses": analyses, "jobs": jobs}, out)


gc.callbacks.append(_on_collection)
threading.Thread(target=_sleeper, name="probe", daemon=True).start()
language_server.serve = _serve_watched  # type: ignore[assignment]
# documents open in the server are analysed by their sessions, saved files by the server
session.analyze = _analyze_watched
language_server.analyze = _analyze_watched
atexit.register(_write)
_watch_jobs()
