"""A server under benchmark with bench/server_probe.py loaded into it, from a given tree (this
one, or an older one extracted with `git archive REV | tar -x -C DIR`)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from lsprotocol import types

from bench import trees
from bench.lsp import Client

PROBE = Path(__file__).resolve().parent / "server_probe.py"


def trees_from_arguments() -> dict[str, Path]:
    """The trees to run, by name: this one, and the one `--against DIR` names."""
    # pygls' client logs each answer to a request it already cancelled; expected here
    logging.getLogger("pygls.protocol.json_rpc").setLevel(logging.CRITICAL)
    return trees.trees_from_arguments("interleaved")


async def start(client: Client, tree: Path, capabilities: types.ClientCapabilities,
                debounce_ms: int | None) -> str:
    """Start and initialize a server of `tree` for `client` (`debounce_ms` None: the server's
    default); returns where its probe writes."""
    descriptor, probe_out = tempfile.mkstemp(suffix=".json")
    os.close(descriptor)
    boot = (
        f"import sys, runpy; sys.path.insert(0, {str(tree)!r}); "
        f"runpy.run_path({str(PROBE)!r}, run_name='server_probe'); "
        "from server.cli.main import main; sys.exit(main(['serve', '--stdio']))"
    )
    await client.start_io(sys.executable, "-c", boot,
                          env={**os.environ, "RELAVIUM_PROBE_OUT": probe_out})
    await client.initialize_async(types.InitializeParams(
        capabilities=capabilities,
        initialization_options={
            "relavium": {} if debounce_ms is None else {"debounceMs": debounce_ms}}))
    client.initialized(types.InitializedParams())
    return probe_out


async def stop(client: Client, probe_out: str) -> dict[str, Any]:
    """Shut the server down; what its probe recorded."""
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    for _ in range(100):
        if os.path.getsize(probe_out):
            break
        await asyncio.sleep(0.05)
    probe: dict[str, Any] = json.loads(Path(probe_out).read_text())
    os.unlink(probe_out)
    return probe
