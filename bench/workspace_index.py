"""The workspace agent index (analysis/project/workspace.py) on a generated project of 200
workflows and 100 agent files in the engine's layout: `analyze()` of every workflow without an
index against with one (cold: the index reads the agent files as it goes), interleaved ROUNDS
times; then one agent file changed and one workflow analysed again (what a server does on an
edit). Then the language server's start-up indexing of the same project
(server/lsp/workspace_scan.py, what `serve` runs after `initialized`: the walk `check` does, and
every agent file read into its project's index), against `relavium-lsp check` of the same folder
(a process, its start included), and in the real server over stdio: the indexing's own time
(its log line: progress begun → the index built, while the server is also starting up) and
`initialized` sent → the indexing's `$/progress` end received (which includes the rest of the
server's loading: `initialize` is answered before it). Prints one table and exits 0; it never
asserts a timing.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from analysis.checks.analyze import analyze
from analysis.project.workspace import WorkspaceIndex
from server.lsp.workspace_scan import list_project_agents, read_agents, scan_folders

WORKFLOWS = 200
AGENTS = 100
NODES = 10  # agent nodes a workflow, each naming a project agent
REFS = 3  # `$ref` entries a workflow
ROUNDS = 7


def make_project(root: Path) -> list[tuple[str, str]]:
    agents = root / ".relavium" / "agents"
    flows = root / ".relavium" / "workflows"
    agents.mkdir(parents=True)
    flows.mkdir()
    for number in range(AGENTS):
        (agents / f"a{number}.agent.yaml").write_text(
            f"id: a{number}\nmodel: claude-sonnet-4\nprovider: anthropic\n"
            f"system_prompt: You are agent {number}.\ntools: [read_file]\n", encoding="utf-8")
    texts = []
    for number in range(WORKFLOWS):
        refs = "".join(f"    - $ref: ../agents/a{(number + k) % AGENTS}.agent.yaml\n"
                       for k in range(REFS))
        nodes = "".join(f"    - {{ id: n{k}, type: agent, agent_ref: a{(number * 7 + k) % AGENTS},"
                        " tools: [read_file] }\n" for k in range(NODES))
        edges = "".join(f"    - {{ from: n{k}, to: n{k + 1} }}\n" for k in range(NODES - 1))
        path = flows / f"w{number}.relavium.yaml"
        text = (f"schema_version: '1.0'\nworkflow:\n  id: w{number}\n  agents:\n{refs}"
                f"  nodes:\n{nodes}  edges:\n{edges}")
        path.write_text(text, encoding="utf-8")
        texts.append((str(path), text))
    return texts


def analyse_all(texts: list[tuple[str, str]], index: WorkspaceIndex | None) -> float:
    start = time.perf_counter()
    for path, text in texts:
        if analyze(text, path, workspace=index).diagnostics:
            raise SystemExit(f"{path}: unexpected diagnostics")
    return time.perf_counter() - start


def start_up_index(root: Path) -> float:
    """What the server does at start-up, on fresh indexes: list the files, read the agents."""
    start = time.perf_counter()
    scan = scan_folders([(str(root), None)])
    indexes = {project: WorkspaceIndex(project)
               for project in {file.project for file in scan.files.values()} if project}
    read = read_agents(scan.files.values(), indexes.get)
    list_project_agents(indexes)
    elapsed = time.perf_counter() - start
    if len(scan.files) != WORKFLOWS + AGENTS or read != AGENTS:
        raise SystemExit(f"indexed {len(scan.files)} files, read {read} agents")
    return elapsed


def check_folder(root: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "server", "check", str(root)], check=True,
                   capture_output=True, cwd=Path(__file__).resolve().parent.parent)
    return time.perf_counter() - start


async def served_index(root: Path) -> tuple[float, float]:
    """The server's indexing as it logs it, and `initialized` → the end of its progress."""
    client = LanguageClient("relavium-bench", "1")
    ended: asyncio.Future[float] = asyncio.get_running_loop().create_future()
    logged: list[float] = []

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def log(params: types.LogMessageParams) -> None:
        found = re.search(r"relavium-lsp: indexed .* in ([0-9.]+) s", params.message)
        if found:
            logged.append(float(found.group(1)))

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def created(params: types.WorkDoneProgressCreateParams) -> None:
        return None

    @client.feature(types.PROGRESS)
    def progress(params: types.ProgressParams) -> None:
        value = params.value  # a dict: pygls leaves `$/progress` values unstructured
        if isinstance(value, dict) and value.get("kind") == "end" and not ended.done():
            ended.set_result(time.perf_counter())

    await client.start_io(sys.executable, "-m", "server", "serve", "--stdio",
                          cwd=str(Path(__file__).resolve().parent.parent))
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True)),
        workspace_folders=[types.WorkspaceFolder(uri=str(from_fs_path(str(root))),
                                                 name="bench")]))
    start = time.perf_counter()
    client.initialized(types.InitializedParams())
    elapsed = await asyncio.wait_for(ended, 60) - start
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return logged[0], elapsed


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        texts = make_project(root)
        alone: list[float] = []
        indexed: list[float] = []
        analyse_all(texts, None)  # warm the caches of the modules' first use
        for _ in range(ROUNDS):
            alone.append(analyse_all(texts, None))
            indexed.append(analyse_all(texts, WorkspaceIndex(str(root))))
        index = WorkspaceIndex(str(root))
        analyse_all(texts, index)
        changed = root / ".relavium" / "agents" / "a5.agent.yaml"
        edits: list[float] = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            index.update(str(changed), changed.read_text(encoding="utf-8"))
            analyze(texts[0][1], texts[0][0], workspace=index)
            edits.append(time.perf_counter() - start)
        start_up: list[float] = []
        checks: list[float] = []
        served: list[float] = []
        served_total: list[float] = []
        for _ in range(ROUNDS):
            start_up.append(start_up_index(root))
            checks.append(check_folder(root))
            own, total = asyncio.run(served_index(root))
            served.append(own)
            served_total.append(total)
    print(f"{WORKFLOWS} workflows ({NODES} agent nodes, {REFS} $refs each), {AGENTS} project "
          f"agent files, {ROUNDS} rounds")
    print(f"{'analysis':<44}{'median s':>10}{'min s':>10}")
    for name, samples in (("every workflow alone (no index)", alone),
                          ("every workflow with a cold index", indexed),
                          ("one agent edited, one workflow again", edits),
                          ("the server's start-up indexing", start_up),
                          ("relavium-lsp check of the folder", checks),
                          ("the server's indexing, as it logs it", served),
                          ("the server: initialized → indexing ended", served_total)):
        print(f"{name:<44}{statistics.median(samples):>10.4f}{min(samples):>10.4f}")
    print(f"index / alone: {statistics.median(indexed) / statistics.median(alone):.2f}x")
    print(f"start-up indexing / check: "
          f"{statistics.median(start_up) / statistics.median(checks):.3f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
