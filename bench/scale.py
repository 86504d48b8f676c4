"""Growth with size, whole processes: `relavium-lsp check` of generated clean workflows of 5,000
and 10,000 nodes, against a process that only composes the same YAML (`yaml.compose` with the
CSafeLoader). Targets (issue 12): check at 10,000 nodes at most 2.3x the time at 5,000, at most 3x
compose at 5,000; peak RSS linear too. Two shapes (issue 26 item 3): `generated`
(tests/analysis/large_workflow.py: agents, gates, merges, conditions) and `dense`
(bench/dense_workflow.py: every node a transform or condition with a ~200-character expression),
whose 10,000 nodes are over the engine's 2 MiB source cap: it grows from 2,500 to 5,000.

    .venv/bin/python bench/scale.py                 # this tree
    .venv/bin/python bench/scale.py --against DIR   # and another tree's check, in the same rounds
                                                    # (git archive REV | tar -x -C DIR)
    .venv/bin/python bench/scale.py --rounds 3      # fewer rounds (default 5)

Rounds are interleaved in one run; ratios of medians are the numbers to report. Wall time is the
target's measure; CPU time (user + system) is printed beside it because it moves less with the
machine's load. Prints one table and exits 0; it never asserts a timing.

Every process reads its modules' bytecode from a cache filled by an untimed first round, as an
installed package does (pip compiles it; PyYAML's own already is): with PYTHONDONTWRITEBYTECODE
set, as in some development shells, each check would compile the project's sources again (0.1 s
at every start). `--no-bytecode-cache` measures that case.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bytecode import cached_bytecode
from bench.dense_workflow import dense_workflow
from tests.analysis.large_workflow import large_workflow

ROUNDS = 5
SIZES = (500, 1000)  # blocks of ten nodes
COMPOSE = "import sys, yaml; yaml.compose(open(sys.argv[1]).read(), Loader=yaml.CSafeLoader)"
THIS_TREE = Path(__file__).resolve().parent.parent
SHAPES = {"generated": large_workflow, "dense": dense_workflow}
# dense 10,000 nodes is 3.2 MB, which the engine (and check) refuses unread
SHAPE_SIZES = {"generated": SIZES, "dense": (250, 500)}
TARGET_BLOCKS = 500  # the compose ratio's size, in both shapes


def run(command: list[str], tree: Path, bytecode: str | None) -> tuple[float, float, int]:
    """Wall time, CPU time and peak RSS (KiB) of one process run in `tree`, reading and writing
    bytecode under the folder `bytecode` (None: as the environment says)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    if bytecode is not None:
        env = cached_bytecode(bytecode, env)
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               cwd=tree, env=env)
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - began, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", type=Path, help="another tree whose check runs too")
    parser.add_argument("--no-bytecode-cache", dest="bytecode", action="store_false",
                        help="compile sources as the environment says (no warm-up round)")
    parser.add_argument("--rounds", type=int, default=ROUNDS,
                        help=f"interleaved rounds per process (default {ROUNDS})")
    args = parser.parse_args()
    trees = {"check": THIS_TREE}
    if args.against:
        trees["against"] = args.against.resolve()
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for shape, generate in SHAPES.items():
            for blocks in SHAPE_SIZES[shape]:
                path = Path(folder) / f"{shape}-n{blocks * 10}.relavium.yaml"
                path.write_text(generate(blocks), encoding="utf-8")
                paths[shape, blocks] = str(path)
        commands = {
            (kind, shape, blocks): (
                [sys.executable, "-c", COMPOSE, paths[shape, blocks]]
                if kind == "compose"
                else [sys.executable, "-m", "server", "check", paths[shape, blocks]]
            )
            for shape in SHAPES
            for kind in ("compose", *trees)
            for blocks in SHAPE_SIZES[shape]
        }
        walls: dict[tuple[str, str, int], list[float]] = {key: [] for key in commands}
        cpus: dict[tuple[str, str, int], list[float]] = {key: [] for key in commands}
        peaks: dict[tuple[str, str, int], int] = dict.fromkeys(commands, 0)
        # Each tree's bytecode in a folder of its own: the trees share module names.
        caches = {kind: str(Path(folder) / f"bytecode-{kind}") if args.bytecode else None
                  for kind in ("compose", *trees)}
        if args.bytecode:
            for key, command in commands.items():
                run(command, trees.get(key[0], THIS_TREE), caches[key[0]])
        for _ in range(args.rounds):
            for key, command in commands.items():
                wall, cpu, peak = run(command, trees.get(key[0], THIS_TREE), caches[key[0]])
                walls[key].append(wall)
                cpus[key].append(cpu)
                peaks[key] = max(peaks[key], peak)
    wall = {key: statistics.median(samples) for key, samples in walls.items()}
    cpu = {key: statistics.median(samples) for key, samples in cpus.items()}
    print(f"{args.rounds} interleaved rounds per process; nodes = blocks x 10 (+1); bytecode "
          f"{'cached' if args.bytecode else 'as the environment says'}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'process':<36}{'p50 s':>8}{'CPU s':>8}{'peak RSS MiB':>14}")
    for (kind, shape, blocks), value in wall.items():
        name = f"{kind} {shape} {blocks * 10} nodes"
        print(f"{name:<36}{value:>8.2f}{cpu[kind, shape, blocks]:>8.2f}"
              f"{peaks[kind, shape, blocks] / 1024:>14.0f}")
    for shape in SHAPES:
        small, large = SHAPE_SIZES[shape]
        for kind in trees:
            at = (kind, shape, TARGET_BLOCKS)
            bare = ("compose", shape, TARGET_BLOCKS)
            print(f"{kind} {shape}: {large * 10} / {small * 10} nodes: "
                  f"{wall[kind, shape, large] / wall[kind, shape, small]:.2f}x "
                  f"(CPU {cpu[kind, shape, large] / cpu[kind, shape, small]:.2f}x, "
                  f"RSS {peaks[kind, shape, large] / peaks[kind, shape, small]:.2f}x); "
                  f"/ compose at {TARGET_BLOCKS * 10} nodes: {wall[at] / wall[bare]:.2f}x "
                  f"(CPU {cpu[at] / cpu[bare]:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
