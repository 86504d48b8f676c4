"""Requests on a small document while large documents are being re-analysed (issue 12, item 4:
the server never starves), in one server over stdio per scenario:

- `1k-whole`: three 1,000-node documents, each replaced whole every 0.5 s;
- `5k-keys`: three 5,000-node documents (1 MB each), each typed into (one character, an
  incremental didChange) every 0.5 s — every analysis is superseded before it ends;
- `5k-shown`: the same, and after each keystroke the client asks for each large document's
  symbols, as an editor showing them does (those requests need the documents' models: older
  trees built them in the server, this one asks the analysis process, which has them).

Hover and completion on an 11-node document are timed idle (before the large ones open) and
loaded. A probe inside the server (bench/server_probe.py) says what the requests waited for:
the longest cyclic-collector pause (it holds the interpreter lock), the longest time a thread
that sleeps 1 ms could not run, the longest event-loop lag, and how many analyses ran in the
server process. The last column says how many symbols requests were answered by the end: typed
into every 0.5 s, a 5,000-node document's analysis is superseded before it ends, so few or none
are (what an answer costs the other requests shows once typing pauses).

    .venv/bin/python bench/starve.py                 # this tree
    .venv/bin/python bench/starve.py --against DIR   # and another tree (git archive REV | tar -x
                                                     # -C DIR), interleaved in the same run

Prints one table and exits 0; it never asserts a timing.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import probed
from bench.lsp import CAPABILITIES, Client, percentile
from tests.analysis.large_workflow import large_workflow

REQUESTS = 40
LARGE_DOCUMENTS = 3
SMALL = large_workflow(1)
SMALL_URI = "file:///bench/small.relavium.yaml"
# inside `inputs.threshold` in the small workflow's first condition
NEEDLE = "inputs.threshold"
SCENARIOS = {"1k-whole": (100, "whole"), "5k-keys": (500, "keys"), "5k-shown": (500, "shown")}


def position_of(text: str, needle: str) -> types.Position:
    offset = text.index(needle) + 9
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


async def request_latencies(client: Client, count: int) -> dict[str, list[tuple[float, float]]]:
    """(start, seconds) of alternating hovers and completions on the small document."""
    where = types.TextDocumentIdentifier(uri=SMALL_URI)
    position = position_of(SMALL, NEEDLE)
    found: dict[str, list[tuple[float, float]]] = {"hover": [], "completion": []}
    for _ in range(count):
        began = time.perf_counter()
        hover = await asyncio.wait_for(
            client.text_document_hover_async(types.HoverParams(where, position)), 120)
        found["hover"].append((began, time.perf_counter() - began))
        assert hover is not None, "the hover found nothing to describe"
        await asyncio.sleep(0.025)
        began = time.perf_counter()
        completion = await asyncio.wait_for(
            client.text_document_completion_async(types.CompletionParams(where, position)), 120)
        found["completion"].append((began, time.perf_counter() - began))
        assert completion, "the completion offered nothing"
        await asyncio.sleep(0.025)
    return found


async def keep_editing(client: Client, uris: list[str], text: str, mode: str,
                       asking: list[asyncio.Future[object]]) -> None:
    version = 1
    keystroke_line = text.count("\n", 0, text.index("label: Start"))
    try:
        await type_along(client, uris, text, mode, asking, version, keystroke_line)
    finally:
        for request in asking:
            request.cancel()


async def type_along(client: Client, uris: list[str], text: str, mode: str,
                     asking: list[asyncio.Future[object]], version: int, keystroke_line: int
                     ) -> None:
    while True:
        version += 1
        for uri in uris:
            change: types.TextDocumentContentChangeEvent
            if mode == "whole":
                change = types.TextDocumentContentChangeWholeDocument(
                    text if version % 2 else text.replace("label: Start", "label: Begin"))
            else:
                at = types.Position(line=keystroke_line, character=len("    - { id: start"))
                change = types.TextDocumentContentChangePartial(
                    range=types.Range(start=at, end=at), text="x")
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[change]))
            if mode == "shown":
                asking.append(asyncio.ensure_future(client.text_document_document_symbol_async(
                    types.DocumentSymbolParams(types.TextDocumentIdentifier(uri=uri)))))
        await asyncio.sleep(0.5)


def open_document(client: Client, uri: str, text: str) -> None:
    item = types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(item))


async def run_scenario(tree: Path, blocks: int, mode: str) -> dict[str, object]:
    client = Client()
    probe_out = await probed.start(client, tree, CAPABILITIES, debounce_ms=0)
    open_document(client, SMALL_URI, SMALL)
    idle = await request_latencies(client, 10)
    text = large_workflow(blocks)
    uris = [f"file:///bench/large-{index}.relavium.yaml" for index in range(LARGE_DOCUMENTS)]
    for uri in uris:
        open_document(client, uri, text)
    asking: list[asyncio.Future[object]] = []
    editing = asyncio.ensure_future(keep_editing(client, uris, text, mode, asking))
    await asyncio.sleep(1)
    loaded = await request_latencies(client, REQUESTS)
    symbols = f"{sum(request.done() for request in asking)}/{len(asking)}"
    editing.cancel()
    probe = await probed.stop(client, probe_out)
    first = min(began for samples in loaded.values() for began, _ in samples)
    last = max(began + took for samples in loaded.values() for began, took in samples)

    def during(events: list[list[float]]) -> list[list[float]]:
        return [event for event in events if first <= event[0] <= last]

    return {"idle": idle, "loaded": loaded, "seconds": last - first,
            "collections": during(probe["collections"]), "held": during(probe["held"]),
            "loop_lags": during(probe["loop_lags"]), "analyses": during(probe["analyses"]),
            "symbols": symbols}


def longest(events: list[list[float]], index: int) -> float:
    return max((event[index] for event in events), default=0.0) * 1000


async def main() -> int:
    trees = probed.trees_from_arguments()
    print(f"{REQUESTS} hovers and {REQUESTS} completions on an 11-node document while "
          f"{LARGE_DOCUMENTS} large documents change every 0.5 s (debounce 0); load average "
          f"{os.getloadavg()[0]:.2f} at the start")
    header = (f"{'tree':<8}{'scenario':<10}{'request':<11}{'idle p50':>9}{'p50 ms':>8}"
              f"{'p95 ms':>8}{'max ms':>8}{'gc max':>8}{'held':>7}{'loop':>7}{'in-proc':>8}"
          f"{'symbols':>9}")
    print(header)
    for scenario, (blocks, mode) in SCENARIOS.items():
        for name, tree in trees.items():
            found = await run_scenario(tree, blocks, mode)
            for request in ("hover", "completion"):
                idle = [took for _, took in found["idle"][request]]  # type: ignore[index]
                loaded = [took for _, took in found["loaded"][request]]  # type: ignore[index]
                print(f"{name:<8}{scenario:<10}{request:<11}{percentile(idle, 0.5) * 1000:>9.1f}"
                      f"{percentile(loaded, 0.5) * 1000:>8.1f}"
                      f"{percentile(loaded, 0.95) * 1000:>8.1f}{max(loaded) * 1000:>8.1f}"
                      f"{longest(found['collections'], 2):>8.0f}"  # type: ignore[arg-type]
                      f"{longest(found['held'], 1):>7.0f}"  # type: ignore[arg-type]
                      f"{longest(found['loop_lags'], 1):>7.0f}"  # type: ignore[arg-type]
                      f"{len(found['analyses']):>8}"  # type: ignore[arg-type]
                      f"{found['symbols']:>9}")
    print("gc max: longest collector pause while loaded; held: longest time a 1 ms sleeper "
          "could not run; loop: longest event-loop lag; in-proc: analyses in the server "
          "process (ms, during the loaded requests); symbols: requests answered / asked by the "
          f"end of the loaded requests; load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
