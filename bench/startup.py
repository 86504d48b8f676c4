"""Server start-up over stdio, from spawning the process: → `initialize` answered, and → the first
diagnostics of a small workflow opened right after `initialized` (when the server is ready for
real work); `--nodes N` also opens a generated workflow of about N nodes in another round of
fresh servers (large ones are diagnosed in the analysis process, which the server sends a
document opened while it loads at once). Floors in the same run: the bare interpreter
(`python -c pass`) and `import lsprotocol.types` (what every pygls server imports before it can
answer).

A bare client (pipes, no pygls) so the client's own imports are not in the figures. Rounds are
interleaved; `--baseline DIR` adds a second server run from another tree (e.g. main, unpacked
with `git archive main | tar -x -C DIR`) in the same rounds, for a before/after in one run, and
`--yamlls JS` yaml-language-server's start → initialize answered (`npm install
yaml-language-server` somewhere; its first diagnostics need a schema: bench/ compares those apart).
Prints one table and exits 0; it never asserts a timing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bytecode import cached_bytecode

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = (ROOT / "examples" / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
URI = "file:///bench/ticket-triage.relavium.yaml"
LARGE_URI = "file:///bench/generated.relavium.yaml"
# each tree's bytecode cache (bench/bytecode.py), filled by an untimed first start
BYTECODE = Path(tempfile.mkdtemp(prefix="relavium-startup-bytecode-"))
# VS Code's shape for what matters at start-up: it pulls settings, and it is pushed diagnostics
# unless it says it can pull them (it does not here, so the figure is one publishDiagnostics).
CAPABILITIES = {"workspace": {"configuration": True}, "general": {"positionEncodings": ["utf-16"]}}


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while (header := stream.readline()) not in (b"\r\n", b""):
        if header.lower().startswith(b"content-length:"):
            length = int(header.split(b":")[1])
    if not length:
        raise EOFError("the server closed its output")
    return json.loads(stream.read(length))


def start_once(command: list[str], tree: Path | None = None, uri: str = URI,
               text: str = WORKFLOW) -> tuple[float, float | None]:
    """(start → initialize answered, start → first diagnostics of `text` at `uri`) in seconds;
    diagnostics only for a relavium-lsp `tree`, whose bytecode is cached (`BYTECODE`)."""
    environment = None
    if tree is not None:
        bytecode = BYTECODE / tree.resolve().as_posix().strip("/").replace("/", "+")
        environment = cached_bytecode(bytecode, {**os.environ, "PYTHONPATH": str(tree)})
    began = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=tree, env=environment,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    def send(message: dict[str, Any]) -> None:
        stdin.write(frame(message))
        stdin.flush()

    send({"id": 1, "method": "initialize",
          "params": {"processId": os.getpid(), "rootUri": None, "capabilities": CAPABILITIES}})
    while "result" not in (message := read_message(stdout)):
        pass
    initialized = time.perf_counter() - began
    diagnosed = None
    if tree is not None:
        send({"method": "initialized", "params": {}})
        send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": text}}})
        while (message := read_message(stdout)).get("method") != "textDocument/publishDiagnostics":
            if "id" in message and "method" in message:  # workspace/configuration: no settings
                send({"id": message["id"], "result": [None]})
        diagnosed = time.perf_counter() - began
    send({"id": 2, "method": "shutdown"})
    while read_message(stdout).get("id") != 2:
        pass
    send({"method": "exit"})
    process.communicate(timeout=60)
    return initialized, diagnosed


def run_once(code: str) -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="also start the server of this tree (a checkout of another commit)")
    parser.add_argument("--yamlls", type=Path, metavar="JS",
                        help="also start yaml-language-server (node JS --stdio), e.g. "
                             "node_modules/yaml-language-server/bin/yaml-language-server")
    parser.add_argument("--nodes", type=int, metavar="N",
                        help="also the first diagnostics of a generated workflow of ~N nodes")
    args = parser.parse_args()
    large = None
    if args.nodes is not None:
        from tests.analysis.large_workflow import large_workflow

        large = large_workflow(max(1, args.nodes // 10))
    server = [sys.executable, "-m", "server", "serve", "--stdio"]
    trees = {"this tree": ROOT}
    if args.baseline is not None:
        trees["baseline"] = args.baseline.resolve()
    for tree in trees.values():  # compiles what the server imports, into the tree's cache
        start_once(server, tree)
    samples: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        samples.setdefault("python -c pass", []).append(run_once("pass"))
        samples.setdefault("python -c 'import lsprotocol.types'", []).append(
            run_once("import lsprotocol.types"))
        for name, tree in trees.items():
            initialized, diagnosed = start_once(server, tree)
            samples.setdefault(f"{name}: start → initialize answered", []).append(initialized)
            assert diagnosed is not None
            samples.setdefault(f"{name}: start → first diagnostics", []).append(diagnosed)
        for name, tree in trees.items() if large is not None else ():
            _, diagnosed = start_once(server, tree, LARGE_URI, large)
            assert diagnosed is not None
            samples.setdefault(f"{name}: start → first diagnostics, {args.nodes} nodes",
                               []).append(diagnosed)
        if args.yamlls is not None:
            initialized, _ = start_once(["node", str(args.yamlls.resolve()), "--stdio"])
            samples.setdefault("yaml-language-server: start → initialize answered", []).append(
                initialized)
    load = os.getloadavg()
    print(f"{args.rounds} interleaved rounds; load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f} (1/5/15 min) at the end")
    print(f"{'measure':<52}{'p50 ms':>9}{'min ms':>9}{'max ms':>9}")
    for name, values in samples.items():
        print(f"{name:<52}{statistics.median(values) * 1000:>9.1f}"
              f"{min(values) * 1000:>9.1f}{max(values) * 1000:>9.1f}")
    measures = ["start → initialize answered", "start → first diagnostics",
                f"start → first diagnostics, {args.nodes} nodes"]
    ratios = [(other, measure) for other in ("baseline", "yaml-language-server")
              for measure in measures if f"{other}: {measure}" in samples]
    for other, measure in ratios:
        ratio = (statistics.median(samples[f"this tree: {measure}"])
                 / statistics.median(samples[f"{other}: {measure}"]))
        print(f"ratio of medians, this tree / {other}, {measure}: {ratio:.2f}x")
    shutil.rmtree(BYTECODE, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
