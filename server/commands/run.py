"""`relavium-lsp run`: evaluate one node's expression with a sample scope.

The scope: `--scope FILE` if given, else the project configuration's `sample-scope`, else the
sidecar `<stem>.samples.json|yaml` next to the workflow, else one synthesized from the workflow
(see `analysis.sample_scope`). `--format json` prints the `eval` JSON shape plus `node`, `kind`
and `scope` (which scope was used, its values with secrets denied). Exit 0 on a value, 1 on a
sandbox error, 2 on usage, I/O, configuration or scope errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from analysis import analyze
from analysis.project_config import ConfigError, configured_sample_scope
from sandbox import WorkerPool
from server import dry_run
from server.commands import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, print_safely

NAME = "run"
HELP = "Evaluate a node's expression in the sandbox with a sample scope."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--node", required=True, metavar="ID")
    parser.add_argument("--scope", metavar="FILE.json")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def main(args: argparse.Namespace) -> int:
    try:
        with open(args.file, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        print(f"relavium-lsp run: {args.file}: cannot read it ({error})", file=sys.stderr)
        return EXIT_USAGE
    try:
        explicit = args.scope or configured_sample_scope(Path(args.file))
        sample, scope = dry_run.prepare(analyze(text, args.file), args.file, args.node, explicit)
    except (dry_run.DryRunError, ConfigError) as error:
        print(f"relavium-lsp run: {args.file}: {error}", file=sys.stderr)
        return EXIT_USAGE
    with WorkerPool() as pool:
        result = dry_run.evaluate(pool, sample, scope)
    if args.format == "json":
        print_safely(json.dumps(result.to_json(), ensure_ascii=True))
    else:
        print(f"{args.node}: {result.scope_label}", file=sys.stderr)
        for note in sample.notes:
            print(f"note: {note}", file=sys.stderr)
        print_safely(result.outcome.to_text(), None if result.outcome.ok else sys.stderr)
    return EXIT_OK if result.outcome.ok else EXIT_FAILURE
