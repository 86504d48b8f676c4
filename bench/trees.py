"""The trees a benchmark compares, in one run: this one, and the one `--against DIR` names (an
older tree extracted with `git archive REV | tar -x -C DIR`); and code run in a tree's own
process, importing from that tree only."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

THIS = Path(__file__).resolve().parent.parent


def trees_from_arguments(how: str = "in the same run") -> dict[str, Path]:
    """The trees to run, by name: "this", and "against" when `--against DIR` is given."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", type=Path, help=f"another tree to run {how}")
    args = parser.parse_args()
    trees = {"this": THIS}
    if args.against:
        trees["against"] = args.against.resolve()
    return trees


def run_in(tree: Path, code: str, *args: str) -> Any:
    """What `code` (run with `python -c` in `tree`, with `args`) prints as JSON."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=tree, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)
