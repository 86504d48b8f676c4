"""The language server over stdio, on generated workflows (issue 12, targets 3 and 8):

- didChange → publishDiagnostics with the whole text replaced, 1,000 nodes, debounce 0 (compute
  plus protocol), against `analyze()` of the same text in this process;
- a single-character edit (typing into one expression) → diagnostics, 1,000 nodes, debounce 0:
  the compute-only figure of target 3 (no debounce; includes applying the change, analysing and
  converting diagnostics), with `analyze()` of the same versions in this process beside it, given
  the previous version's result as the server's analysis process gives it (`take_over`: a
  document this size is analysed there);
- a burst of 20 keystrokes 20 ms apart with the default debounce (200 ms): how long after the
  debounce window closes (last keystroke + 200 ms) the last version's diagnostics arrive;
- 40 single-character edits at 5,000 nodes, debounce 0: p50 and p95 (target p95 ≤ 1.5× p50 —
  spikes here are the cyclic garbage collector), and the server's peak RSS;
- server start → initialize answered. The server answers `initialize` before it has loaded
  (server/lsp/boot/early_initialize.py), so "first open → diagnostics" includes the rest of its
  loading; bench/startup.py measures start → first diagnostics whole.

Rounds are interleaved in one run; ratios of medians are the numbers to report. Prints one
table and exits 0; it never asserts a timing.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.checks.analyze import AnalysisResult, analyze
from analysis.checks.collector import tune_collector
from server.lsp.settings import DEFAULT_DEBOUNCE_MS
from tests.analysis.large_workflow import large_workflow

ROUNDS = 30
STARTS = 5
BURSTS = 10
BURST_KEYS = 20
BURST_GAP = 0.020
GC_EDITS = 40
SERVER = [sys.executable, "-m", "server", "serve", "--stdio"]
URI = "file:///bench/generated.relavium.yaml"
CAPABILITIES = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities()
    )
)
# Typing goes at the end of this expression (a transform in the middle of the workflow), so
# every keystroke makes a new expression text: one cache miss per version, as in an editor.
TYPED_INTO = "transform: 'run.outputs[\"b{block}-shape\"].block + 1"


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("relavium-bench", "1")
        self.waiting: dict[int, asyncio.Future[float]] = {}

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            future = self.waiting.pop(params.version or -1, None)
            if future is not None and not future.done():
                future.set_result(time.perf_counter())

    def expect(self, version: int) -> asyncio.Future[float]:
        """A future set to when diagnostics of `version` arrive."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[version] = future
        return future

    def peak_rss_mib(self) -> float:
        """The server process's peak resident memory (Linux)."""
        assert self._server is not None
        status = Path(f"/proc/{self._server.pid}/status").read_text()
        line = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
        return int(line.split()[1]) / 1024


async def start(client: Client, debounce_ms: int = 0) -> float:
    began = time.perf_counter()
    await client.start_io(*SERVER)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=CAPABILITIES,
            initialization_options={"relavium": {"debounceMs": debounce_ms}},
        )
    )
    client.initialized(types.InitializedParams())
    return time.perf_counter() - began


async def stop(client: Client) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


async def published_after(client: Client, version: int, send: Callable[[], None]) -> float:
    future = client.expect(version)
    began = time.perf_counter()
    send()
    return await asyncio.wait_for(future, 120) - began


def whole_change(version: int, text: str) -> types.DidChangeTextDocumentParams:
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
    )


class Typist:
    """Single-character edits typed at the end of one expression of a generated workflow; keeps
    the text of every version so this process can analyse the same texts."""

    def __init__(self, text: str, blocks: int) -> None:
        anchor = TYPED_INTO.format(block=blocks // 2)
        offset = text.index(anchor) + len(anchor)
        self.text = text
        self.line = text.count("\n", 0, offset)
        self.character = offset - (text.rfind("\n", 0, offset) + 1)  # the line is ASCII
        self.offset = offset
        self.typed = 0

    def keystroke(self, version: int) -> types.DidChangeTextDocumentParams:
        digit = str(self.typed % 10)
        self.typed += 1
        position = types.Position(line=self.line, character=self.character)
        self.text = self.text[: self.offset] + digit + self.text[self.offset :]
        self.offset += 1
        self.character += 1
        return types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=position, end=position), text=digit
                )
            ],
        )


async def opened(client: Client, text: str) -> float:
    item = types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text)
    return await published_after(
        client, 1, lambda: client.text_document_did_open(types.DidOpenTextDocumentParams(item))
    )


def timed_analysis(text: str, previous: list[AnalysisResult] | None = None) -> float:
    """`analyze` of `text`; with `previous` (a one-item list, updated) as the server's analysis
    process does it after an edit: with the last version's result, which it gives up."""
    gc.collect()  # this process's garbage is not the server's
    began = time.perf_counter()
    result = analyze(text, "generated.relavium.yaml",
                     previous=previous[0] if previous else None, take_over=bool(previous))
    elapsed = time.perf_counter() - began
    if previous is not None:
        previous[:] = [result]
    return elapsed


async def whole_text_rounds(client: Client, texts: list[str], versions: Iterator[int]
                            ) -> tuple[list[float], list[float]]:
    latencies: list[float] = []
    in_process: list[float] = []
    for round_ in range(ROUNDS):
        text, version = texts[round_ % 2], next(versions)
        change = whole_change(version, text)
        latencies.append(
            await published_after(
                client, version, lambda c=change: client.text_document_did_change(c)
            )
        )
        in_process.append(timed_analysis(text))
    return latencies, in_process


async def keystroke_rounds(client: Client, typist: Typist, versions: Iterator[int], rounds: int,
                           baseline: bool) -> tuple[list[float], list[float]]:
    latencies: list[float] = []
    in_process: list[float] = []
    last = [analyze(typist.text, "generated.relavium.yaml")] if baseline else []
    for _ in range(rounds):
        version = next(versions)
        change = typist.keystroke(version)
        latencies.append(
            await published_after(
                client, version, lambda c=change: client.text_document_did_change(c)
            )
        )
        if baseline:
            in_process.append(timed_analysis(typist.text, last))
    return latencies, in_process


async def burst_lags(client: Client, typist: Typist, versions: Iterator[int]) -> list[float]:
    """Per burst: last version's diagnostics arrival − (last keystroke + debounce)."""
    lags = []
    for _ in range(BURSTS):
        last = 0
        sent = 0.0
        for key in range(BURST_KEYS):
            if key:
                await asyncio.sleep(BURST_GAP)
            last = next(versions)
            change = typist.keystroke(last)
            arrived = client.expect(last)
            client.text_document_did_change(change)
            sent = time.perf_counter()
        lags.append(await asyncio.wait_for(arrived, 120) - sent - DEFAULT_DEBOUNCE_MS / 1000)
        await asyncio.sleep(0.3)  # let the server settle between bursts
    return lags


async def main() -> int:
    tune_collector()  # the in-process baseline runs as the server does
    startups = []
    for _ in range(STARTS):
        client = Client()
        startups.append(await start(client))
        await stop(client)

    base = large_workflow(100)
    texts = [base, base.replace("label: Start", "label: Begin")]
    nodes = len(analyze(base).workflow.nodes)  # type: ignore[union-attr]
    client = Client()
    await start(client)
    first_open = await opened(client, base)
    versions = iter(range(2, 1_000_000))
    whole, whole_in_process = await whole_text_rounds(client, texts, versions)
    # back to the base text, then type into it
    await published_after(client, version := next(versions),
                          lambda: client.text_document_did_change(whole_change(version, base)))
    typist = Typist(base, 100)
    keys, keys_in_process = await keystroke_rounds(client, typist, versions, ROUNDS, True)
    await stop(client)

    client = Client()
    await start(client, DEFAULT_DEBOUNCE_MS)
    await opened(client, base)
    lags = await burst_lags(client, Typist(base, 100), iter(range(2, 1_000_000)))
    await stop(client)

    large = large_workflow(500)
    client = Client()
    await start(client)
    await opened(client, large)
    spikes, _ = await keystroke_rounds(client, Typist(large, 500), iter(range(2, 1_000_000)),
                                       GC_EDITS, False)
    peak = client.peak_rss_mib()
    await stop(client)

    print(
        f"workflow: {nodes} nodes, {len(base.splitlines())} lines; {ROUNDS} interleaved rounds, "
        f"{STARTS} server starts; first open → diagnostics {first_open * 1000:.0f} ms"
    )
    print(f"{'measure':<58}{'p50 ms':>9}{'p95 ms':>9}")
    rows = [
        ("didChange, whole text → publishDiagnostics (debounce 0)", whole),
        ("analyze() of the same texts in process", whole_in_process),
        ("1-char edit → publishDiagnostics (debounce 0)   [≤ 50]", keys),
        ("analyze(previous=…, take_over) of the same versions", keys_in_process),
        (f"{BURST_KEYS}-key burst: last diagnostics − debounce end    [≤ 150]", lags),
        (f"5,001 nodes: 1-char edit → diagnostics, {GC_EDITS} edits", spikes),
        ("server start → initialize answered", startups),
    ]
    for name, samples in rows:
        print(f"{name:<58}{percentile(samples, 0.5) * 1000:>9.1f}"
              f"{percentile(samples, 0.95) * 1000:>9.1f}")
    print(f"ratio of medians, whole-text round trip / analyze(): "
          f"{statistics.median(whole) / statistics.median(whole_in_process):.2f}x")
    print(f"ratio of medians, 1-char round trip / analyze(): "
          f"{statistics.median(keys) / statistics.median(keys_in_process):.2f}x")
    print(f"5,001 nodes: p95 / p50 = {percentile(spikes, 0.95) / percentile(spikes, 0.5):.2f} "
          f"[≤ 1.5]; server peak RSS {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
