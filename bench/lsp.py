"""The language server over stdio: didChange → publishDiagnostics latency on a generated
1,000-node workflow (debounce off, so it is compute plus protocol), against `analyze()` of the
same text in this process, and server start → initialized. The server answers `initialize`
before it has loaded (server/early_initialize.py), so "first open → diagnostics" includes the
rest of its loading; bench/startup.py measures start → first diagnostics whole.

Rounds are interleaved in one run; the ratio of medians is the number to report. Prints one
table and exits 0; it never asserts a timing.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis import analyze, tune_collector
from tests.analysis.large_workflow import large_workflow

ROUNDS = 30
STARTS = 5
SERVER = [sys.executable, "-m", "server", "serve", "--stdio"]
URI = "file:///bench/generated.relavium.yaml"
CAPABILITIES = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities()
    )
)


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


async def start(client: Client) -> float:
    began = time.perf_counter()
    await client.start_io(*SERVER)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=CAPABILITIES, initialization_options={"relavium": {"debounceMs": 0}}
        )
    )
    client.initialized(types.InitializedParams())
    return time.perf_counter() - began


async def stop(client: Client) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


async def published_after(client: Client, version: int, send: object) -> float:
    future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
    client.waiting[version] = future
    began = time.perf_counter()
    send()  # type: ignore[operator]
    return await asyncio.wait_for(future, 120) - began


async def main() -> int:
    tune_collector()  # the in-process baseline runs as the server does
    startups = []
    for _ in range(STARTS):
        client = Client()
        startups.append(await start(client))
        await stop(client)

    texts = [large_workflow(100), large_workflow(100).replace("label: Start", "label: Begin")]
    nodes = len(analyze(texts[0]).workflow.nodes)  # type: ignore[union-attr]
    client = Client()
    await start(client)
    item = types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=texts[0])
    opened = await published_after(
        client, 1, lambda: client.text_document_did_open(types.DidOpenTextDocumentParams(item))
    )
    latencies: list[float] = []
    in_process: list[float] = []
    for round_ in range(ROUNDS):
        text, version = texts[round_ % 2], round_ + 2
        change = types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
        gc.collect()
        latencies.append(
            await published_after(
                client, version, lambda c=change: client.text_document_did_change(c)
            )
        )
        gc.collect()
        began = time.perf_counter()
        analyze(text, "generated.relavium.yaml")
        in_process.append(time.perf_counter() - began)
    await stop(client)

    print(
        f"workflow: {nodes} nodes, {len(texts[0].splitlines())} lines; {ROUNDS} interleaved "
        f"rounds, {STARTS} server starts; first open → diagnostics {opened * 1000:.0f} ms"
    )
    print(f"{'measure':<44}{'p50 ms':>10}{'p95 ms':>10}")
    rows = [
        ("didChange → publishDiagnostics (debounce 0)", latencies),
        ("analyze() in process (baseline)", in_process),
        ("server start → initialize answered", startups),
    ]
    for name, samples in rows:
        print(
            f"{name:<44}{percentile(samples, 0.5) * 1000:>10.1f}"
            f"{percentile(samples, 0.95) * 1000:>10.1f}"
        )
    ratio = statistics.median(latencies) / statistics.median(in_process)
    print(f"ratio of medians, LSP round trip / analyze(): {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
