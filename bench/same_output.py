"""Prove that a change of layout changed no behaviour: the CLI of two source trees prints the same.

The trees are BASE_REV (extracted with `git archive`) and DIR (default: this repository's working
tree, uncommitted changes included). Each runs as `python -m server` with PYTHONPATH=<tree> (the
module actually imported is checked) on one corpus taken from BASE_REV: every `*.yaml|yml` under
tests/, editors/**/fixtures/ and examples/, with the `*.samples.*` sidecars, copied with their
relative paths to a temporary folder that holds no configuration or .gitignore. Compared, byte for
byte (stdout, stderr, exit code): `check --format text|json|sarif|github` of each workflow and of
the whole corpus, `run` and `run --format json` of each workflow, and `schema`. One field is not
deterministic and is normalised on both sides: the per-node `"ms"` timings of `run --format json`.
A difference is re-run alone once (the sandbox's limits are wall-clock): if it does not recur, it
is printed as unstable and does not fail the comparison.

    .venv/bin/python bench/same_output.py BASE_REV [--tree DIR] [--jobs N]

Prints "identical: N comparisons" and exits 0, or the differing (command, file) with unified
diffs of the first few and exits 1.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parent.parent
FORMATS = ("text", "json", "sarif", "github")
WORKFLOW_SUFFIXES = (".yaml", ".yml")
SIDECAR_SUFFIXES = (".samples.json", ".samples.yaml", ".samples.yml")
# Files whose presence in the corpus folder or above it would change what `check` reads or skips.
CONFIG_NAMES = (".relavium-lsp.toml", "relavium-lsp.toml", "pyproject.toml", ".gitignore", ".git")
MS_FIELD = re.compile(rb'(?<=[{,] )"ms": -?[0-9.]+(?:e[-+]?[0-9]+)?')
TIMEOUT = 300
SHOWN_DIFFS = 3
DIFF_LINES = 40

Result = tuple[int | str, bytes, bytes]


def git(*args: str) -> bytes:
    done = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr.decode().strip()}")
    return done.stdout


def in_corpus(path: PurePosixPath) -> bool:
    top, inner = path.parts[0], path.parts[1:-1]
    return top in ("tests", "examples") or (top == "editors" and "fixtures" in inner)


def build_corpus(base: Path, rev: str, corpus: Path) -> list[str]:
    """Copy BASE_REV's workflows and sidecars into `corpus`; return the workflows' paths."""
    workflows = []
    for name in git("ls-tree", "-r", "-z", "--name-only", rev).decode().split("\0"):
        path = PurePosixPath(name)
        lower = path.name.lower()
        if not name or not in_corpus(path):
            continue
        if lower.endswith(SIDECAR_SUFFIXES) or lower.endswith(WORKFLOW_SUFFIXES):
            (corpus / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(base / path, corpus / path)
            if not lower.endswith(SIDECAR_SUFFIXES):
                workflows.append(name)
    for folder in (corpus, *corpus.parents):
        for config in CONFIG_NAMES:
            if (folder / config).exists():
                raise SystemExit(f"{folder / config} would configure the corpus: set TMPDIR")
    if not workflows:
        raise SystemExit(f"no workflows under tests/, editors/**/fixtures/, examples/ at {rev}")
    return sorted(workflows)


def environment(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def check_imports(tree: Path, corpus: Path) -> str:
    """Fail unless `server`, `analysis` and `sandbox` load from `tree`, not the editable install."""
    code = "import server, analysis, sandbox\nfor m in server, analysis, sandbox: print(m.__file__)"
    files = subprocess.run([sys.executable, "-c", code], cwd=corpus, env=environment(tree),
                           capture_output=True, text=True, check=True).stdout.splitlines()
    for file in files:
        if not Path(file).resolve().is_relative_to(tree):
            raise SystemExit(f"with PYTHONPATH={tree}, {file} was imported instead")
    return files[0]


def run(tree: Path, corpus: Path, args: tuple[str, ...]) -> Result:
    try:
        done = subprocess.run([sys.executable, "-m", "server", *args], cwd=corpus,
                              env=environment(tree), capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as expired:
        return f"timeout after {TIMEOUT} s", expired.stdout or b"", expired.stderr or b""
    stdout = done.stdout
    if args[0] == "run" and args[-2:] == ("--format", "json"):
        stdout = MS_FIELD.sub(b'"ms": 0', stdout)
    return done.returncode, stdout, done.stderr


def commands(workflows: list[str]) -> list[tuple[str, ...]]:
    listed: list[tuple[str, ...]] = []
    for file in workflows:
        listed += [("check", "--format", form, file) for form in FORMATS]
        listed += [("run", file), ("run", file, "--format", "json")]
    listed += [("check", "--format", form, ".") for form in FORMATS]
    listed.append(("schema",))
    return listed


def shown(result: Result) -> list[str]:
    code, stdout, stderr = result
    text = (f"exit {code}\n[stdout]\n{stdout.decode('utf-8', 'backslashreplace')}"
            f"[stderr]\n{stderr.decode('utf-8', 'backslashreplace')}")
    return text.splitlines(keepends=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base_rev", metavar="BASE_REV")
    parser.add_argument("--tree", type=Path, default=REPO, metavar="DIR",
                        help="the source tree to compare (default: this working tree)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N")
    options = parser.parse_args()
    tree = options.tree.resolve()
    rev = git("rev-parse", "--verify", f"{options.base_rev}^{{commit}}").decode().strip()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="same-output-") as scratch:
        base, corpus = Path(scratch, "base"), Path(scratch, "corpus")
        base.mkdir()
        corpus.mkdir()
        archive = subprocess.Popen(["git", "-C", str(REPO), "archive", rev],
                                   stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", str(base)], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            raise SystemExit(f"git archive {rev} failed")
        workflows = build_corpus(base, rev, corpus)
        print(f"base {options.base_rev} ({rev[:12]}): {check_imports(base, corpus)}")
        print(f"tree {tree}: {check_imports(tree, corpus)}")
        listed = commands(workflows)
        print(f"{len(listed)} commands on {len(workflows)} workflows, {options.jobs} jobs")
        with ThreadPoolExecutor(options.jobs) as pool:
            pending = [(pool.submit(run, base, corpus, args), pool.submit(run, tree, corpus, args))
                       for args in listed]
            results = [(ours.result(), theirs.result()) for ours, theirs in pending]
        differing = [(args, old, new) for args, (old, new) in zip(listed, results, strict=True)
                     if old != new]
        # The sandbox's limits are wall-clock (1 s an evaluation, 30 s a worker's start): on a
        # loaded machine one side may time out. A difference counts only if it recurs alone.
        unstable = [args for args, _, _ in differing
                    if run(base, corpus, args) == run(tree, corpus, args)]
        differing = [entry for entry in differing if entry[0] not in unstable]
    summary = f"{len(listed)} comparisons, {time.perf_counter() - started:.0f} s"
    for args in unstable:
        print(f"unstable (differed in the pool, identical when re-run alone): {' '.join(args)}")
    if not differing:
        print(f"identical: {summary}")
        return 0
    print(f"different: {len(differing)} of {summary}")
    for args, _, _ in differing:
        print(f"  {' '.join(args)}")
    for args, old, new in differing[:SHOWN_DIFFS]:
        diff = list(difflib.unified_diff(shown(old), shown(new), f"{rev[:12]}: {' '.join(args)}",
                                         f"{tree}: {' '.join(args)}", n=2))
        print()
        sys.stdout.writelines(diff[:DIFF_LINES])
        if len(diff) > DIFF_LINES:
            print(f"... {len(diff) - DIFF_LINES} more diff lines")
    return 1


if __name__ == "__main__":
    sys.exit(main())
