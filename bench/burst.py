"""A typing burst (issue 12, items 3 and 8): 20 keystrokes 20 ms apart into a 5,000-node
workflow (and a 1,000-node one), push and pull, the default debounce and 0. Measures when
the diagnostics of the last version arrive after the last keystroke (the debounce included), and
how many analyses were started for versions already superseded — in the server process and in
the analysis process (bench/server_probe.py counts them).

Pull is modelled on VS Code: after each keystroke the client asks for the document's
diagnostics and cancels the request it sent before.

    .venv/bin/python bench/burst.py                 # this tree
    .venv/bin/python bench/burst.py --against DIR   # and another tree, interleaved

Prints one table and exits 0; it never asserts a timing.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import probed
from bench.lsp import CAPABILITIES, Client
from tests.analysis.large_workflow import large_workflow

KEYSTROKES = 20
GAP_SECONDS = 0.020
BURSTS = 3
URI = "file:///bench/burst.relavium.yaml"
PULL_CAPABILITIES = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        diagnostic=types.DiagnosticClientCapabilities()
    ),
    workspace=types.WorkspaceClientCapabilities(
        diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    ),
)
# (name, blocks of ten nodes, pull, debounce ms: None is the server's default)
CASES: list[tuple[str, int, bool, int | None]] = [
    ("5k push", 500, False, None),
    ("5k pull", 500, True, None),
    ("5k push d0", 500, False, 0),
    ("5k pull d0", 500, True, 0),
    ("1k push", 100, False, None),
    ("1k push d0", 100, False, 0),
]


def pull_client() -> Client:
    client = Client()

    @client.feature(types.WORKSPACE_DIAGNOSTIC_REFRESH)
    def refresh(params: None) -> None:
        return None

    return client


async def burst(client: Client, pull: bool, line: int, version: int
                ) -> tuple[float, int, float]:
    """Type KEYSTROKES characters; seconds from the last one to its diagnostics, the version
    reached, and when the last keystroke was sent."""
    where = types.TextDocumentIdentifier(uri=URI)
    asked: asyncio.Task[object] | None = None
    arrived: asyncio.Future[float] = asyncio.get_running_loop().create_future()
    last = version + KEYSTROKES
    if not pull:
        client.waiting[last] = arrived
    for column in range(KEYSTROKES):
        version += 1
        at = types.Position(line=line, character=len("    - { id: start, type: input, label: S")
                            + column)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=at, end=at), text="x")]))
        sent = time.perf_counter()
        if pull:
            if asked is not None:
                asked.cancel()  # pygls' client sends $/cancelRequest
            asked = asyncio.ensure_future(client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=where)))
        await asyncio.sleep(GAP_SECONDS)
    if pull:
        assert asked is not None
        await asyncio.wait_for(asked, 120)
        return time.perf_counter() - sent, version, sent
    return await asyncio.wait_for(arrived, 120) - sent, version, sent


async def run_case(tree: Path, blocks: int, pull: bool, debounce: int | None
                   ) -> dict[str, object]:
    client = pull_client() if pull else Client()
    probe_out = await probed.start(
        client, tree, PULL_CAPABILITIES if pull else CAPABILITIES, debounce)
    text = large_workflow(blocks)
    line = text.count("\n", 0, text.index("label: Start"))
    opened: asyncio.Future[float] = asyncio.get_running_loop().create_future()
    if not pull:
        client.waiting[1] = opened
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text)))
    if pull:
        await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=URI)))
    else:
        await asyncio.wait_for(opened, 120)
    lags, windows, lasts, version = [], [], [], 1
    for _ in range(BURSTS):
        began = time.perf_counter()
        lag, version, last = await burst(client, pull, line, version)
        lags.append(lag)
        lasts.append(last)
        windows.append((began, time.perf_counter()))
        await asyncio.sleep(0.3)
    probe = await probed.stop(client, probe_out)

    def inside(events: list[list[float]]) -> list[list[float]]:
        return [e for e in events if any(a <= e[0] <= b for a, b in windows)]

    analyses, jobs = inside(probe["analyses"]), inside(probe["jobs"])
    loop_lag = max((lag for _, lag in inside(probe["loop_lags"])), default=0.0)
    # the last version's analysis in each burst (the last one that finished): how long after
    # the last keystroke it started (debounce, a superseded one stopping), and how long it took
    starts, spans = [], []
    for (began, ended), last in zip(windows, lasts, strict=True):
        finished = [e for e in analyses + jobs if began <= e[0] <= ended and not e[3]]
        if finished:
            final = max(finished, key=lambda e: e[0])
            starts.append(final[0] - last)
            spans.append(final[1])
    return {"lags": lags, "started": len(analyses) + len(jobs), "loop_lag": loop_lag,
            "stopped": sum(1 for e in analyses + jobs if e[3]),
            "in_server": len(analyses),
            "start": statistics.median(starts) if starts else float("nan"),
            "span": statistics.median(spans) if spans else float("nan")}


async def main() -> int:
    trees = probed.trees_from_arguments()
    print(f"{BURSTS} bursts of {KEYSTROKES} keystrokes {GAP_SECONDS * 1000:.0f} ms apart; load "
          f"average {os.getloadavg()[0]:.2f} at the start")
    print(f"{'tree':<9}{'case':<14}{'last-version lag ms (each burst)':<34}{'median':>8}"
          f"{'start':>7}{'took':>6}{'started/burst':>14}{'stopped':>8}{'in server':>10}"
          f"{'loop ms':>8}")
    for name_, blocks, pull, debounce in CASES:
        for tree_name, tree in trees.items():
            found = await run_case(tree, blocks, pull, debounce)
            lags = found["lags"]
            assert isinstance(lags, list)
            each = " ".join(f"{lag * 1000:.0f}" for lag in lags)
            print(f"{tree_name:<9}{name_:<14}{each:<34}{statistics.median(lags) * 1000:>8.0f}"
                  f"{found['start'] * 1000:>7.0f}{found['span'] * 1000:>6.0f}"  # type: ignore[operator]
                  f"{found['started'] / BURSTS:>14.1f}{found['stopped']:>8}"  # type: ignore[operator]
                  f"{found['in_server']:>10}{found['loop_lag'] * 1000:>8.0f}")  # type: ignore[operator]
    print("start, took: when the last version's analysis started after the last keystroke "
          "(the debounce, waiting for a superseded one to stop) and how long it took, medians; "
          "started/burst: analyses started during a burst and until its last diagnostics (1 "
          "would be ideal: the last version only); stopped: of those, stopped when superseded; "
          "loop: the longest event-loop lag during the bursts (how late messages were taken in); "
          f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
