"""Hover on a small document while large documents are being re-analysed (issue 12, item 4: the
server never starves): hover latency with three 1,000-node documents each changed every 0.5 s
(each change supersedes the analysis in progress), against the same hover with nothing else
open, in one server over stdio.

Prints one table (p50/p95 and the ratio loaded / idle) and exits 0; it never asserts a timing.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.lsp import Client, percentile, start, stop
from tests.analysis.large_workflow import large_workflow

HOVERS = 40
LARGE_DOCUMENTS = 3
SMALL = large_workflow(1)
SMALL_URI = "file:///bench/small.relavium.yaml"
# hover over `inputs.threshold` in the small workflow's first condition
NEEDLE = "inputs.threshold"


def position_of(text: str, needle: str) -> types.Position:
    offset = text.index(needle) + 2
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


async def hover_latencies(client: Client, count: int) -> list[float]:
    params = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=SMALL_URI),
        position=position_of(SMALL, NEEDLE),
    )
    latencies = []
    for _ in range(count):
        began = time.perf_counter()
        answer = await asyncio.wait_for(client.text_document_hover_async(params), 120)
        latencies.append(time.perf_counter() - began)
        assert answer is not None, "the hover found nothing to describe"
        await asyncio.sleep(0.05)
    return latencies


async def keep_editing(client: Client, uris: list[str], texts: list[str]) -> None:
    version = 1
    while True:
        version += 1
        for uri in uris:
            change = types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangeWholeDocument(text=texts[version % 2])
                ],
            )
            client.text_document_did_change(change)
        await asyncio.sleep(0.5)


def open_document(client: Client, uri: str, text: str) -> None:
    item = types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(item))


async def main() -> int:
    client = Client()
    await start(client)
    open_document(client, SMALL_URI, SMALL)
    idle = await hover_latencies(client, HOVERS)
    texts = [large_workflow(100), large_workflow(100).replace("label: Start", "label: Begin")]
    uris = [f"file:///bench/large-{index}.relavium.yaml" for index in range(LARGE_DOCUMENTS)]
    for uri in uris:
        open_document(client, uri, texts[0])
    editing = asyncio.ensure_future(keep_editing(client, uris, texts))
    await asyncio.sleep(1)
    loaded = await hover_latencies(client, HOVERS)
    editing.cancel()
    await stop(client)
    print(f"{HOVERS} hovers on a 11-node document, idle, then while {LARGE_DOCUMENTS} "
          "1,001-node documents change every 0.5 s (debounce 0)")
    print(f"{'hover':<30}{'p50 ms':>10}{'p95 ms':>10}")
    for name, samples in (("idle", idle), ("large documents changing", loaded)):
        print(f"{name:<30}{percentile(samples, 0.5) * 1000:>10.1f}"
              f"{percentile(samples, 0.95) * 1000:>10.1f}")
    ratio = statistics.median(loaded) / statistics.median(idle)
    print(f"ratio of medians, loaded / idle: {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
