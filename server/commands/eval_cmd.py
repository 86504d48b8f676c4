"""`relavium-lsp eval`: evaluate one bare expression in the capped sandbox.

The scope file has the sample-scope shape (every part optional)::

    {"inputs": {}, "ctx": {}, "run": {"outputs": {}}, "branches": [],
     "secret_inputs": [], "secret_ctx": []}

`--format json` prints `{"ok": true, "value": ...}` (a top-level NaN, ±Infinity or -0 is
`"value": null` plus `"number": "NaN" | "Infinity" | "-Infinity" | "-0"`) or
`{"ok": false, "error": {"code": "sandbox_error", "reason", "retryable", "message"}}`.
Exit 0 on a value, 1 on a sandbox error, 2 on usage or scope-file errors.
"""

from __future__ import annotations

import argparse
import json
import sys

from sandbox import Scope, ScopeError, WorkerPool
from sandbox.scope import MAX_SCOPE_DEPTH
from server.commands import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, print_safely

NAME = "eval"
HELP = "Evaluate a bare expression in the capped sandbox."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", required=True, choices=("condition", "transform", "merge"))
    parser.add_argument("--expr", required=True, metavar="SOURCE")
    parser.add_argument("--scope", metavar="FILE.json")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def load_scope(path: str | None) -> Scope:
    """The scope file as a Scope; raises ScopeError with the file and field named."""
    if path is None:
        return Scope()
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle, parse_constant=_reject_constant)
    except OSError as error:
        raise ScopeError(f"{path}: cannot read: {error.strerror}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ScopeError(f"{path}: not valid JSON: {error}") from None
    except RecursionError:
        # Python's JSON reader recurses per level; the scope admits far less nesting anyway.
        raise ScopeError(
            f"{path}: nested deeper than {MAX_SCOPE_DEPTH} levels; flatten it"
        ) from None
    try:
        return Scope.from_json(document)
    except ScopeError as error:
        raise ScopeError(f"{path}: {error}") from None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON; use null or a string")


def main(args: argparse.Namespace) -> int:
    try:
        scope = load_scope(args.scope)
    except ScopeError as error:
        print(f"relavium-lsp eval: {error}", file=sys.stderr)
        return EXIT_USAGE
    with WorkerPool() as pool:
        outcome = pool.run(args.expr, args.kind, scope)
    if args.format == "json":
        print_safely(json.dumps(outcome.to_json(), ensure_ascii=True))
    elif outcome.ok:
        print_safely(outcome.to_text())
    else:
        print_safely(outcome.to_text(), sys.stderr)
    return EXIT_OK if outcome.ok else EXIT_FAILURE
