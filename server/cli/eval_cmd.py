"""`relavium-lsp eval`: evaluate one bare expression in the capped sandbox.

The scope file has the sample-scope shape (every part optional)::

    {"inputs": {}, "ctx": {}, "run": {"outputs": {}}, "branches": [],
     "secret_inputs": [], "secret_ctx": []}

`--format json` prints `{"ok": true, "value": ...}` (a top-level NaN, ±Infinity or -0 is
`"value": null` plus `"number": "NaN" | "Infinity" | "-Infinity" | "-0"`) or
`{"ok": false, "error": {"code": "sandbox_error", "reason", "retryable", "message", "detail"?}}`.
`eval` is a dry run of the author's own expression, so a failure shows the author's own error
(`detail`: class, message, range in expression coordinates; never for `secret_context`); text
output shows it like a compiler, `<expr>:LINE:COLUMN: Class: message` with the line and a caret.
Exit 0 on a value, 1 on a sandbox error, 2 on usage or scope-file errors.
"""

from __future__ import annotations

import argparse
import json
import sys

from analysis.document.display import blank_under, shown_pieces
from analysis.document.source import code_points_in, utf16_length
from sandbox import ErrorDetail, Scope, ScopeError, WorkerPool
from sandbox.scope import MAX_SCOPE_DEPTH
from sandbox.syntax import LINE_TERMINATOR
from server.cli.console import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, print_json, print_safely

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
        print_safely(f"relavium-lsp eval: {error}", sys.stderr)
        return EXIT_USAGE
    with WorkerPool() as pool:
        outcome = pool.run(args.expr, args.kind, scope, with_detail=True)
    if args.format == "json":
        print_json(outcome.to_json(include_detail=True))
    elif outcome.ok:
        print_safely(outcome.to_text())
    else:
        if outcome.detail is not None:
            print_safely(compiler_style(args.expr, outcome.detail), sys.stderr)
        print_safely(outcome.to_text(), sys.stderr)
    return EXIT_OK if outcome.ok else EXIT_FAILURE


EXPRESSION_LABEL = "<expr>"


def compiler_style(source: str, detail: ErrorDetail) -> str:
    """`<expr>:1:10: TypeError: message`, then the source line and a caret under the range
    (1-based line and UTF-16 column, as the JSON range plus one)."""
    heading = f"{detail.cls}: {detail.message}"
    if detail.range is None:
        return f"{EXPRESSION_LABEL}: {heading}"
    start, end = detail.range.start, detail.range.end
    line = LINE_TERMINATOR.split(source)[start.line]
    width = (end.character if end.line == start.line else utf16_length(line)) - start.character
    before = code_points_in(line, start.character)
    underlined = code_points_in(line[before:], max(width, 1))
    # Measured as printed (escaped), so the caret stays under the token.
    pieces = shown_pieces(line)
    caret = "^" * max(len("".join(pieces[before : before + underlined])), 1)
    return (
        f"{EXPRESSION_LABEL}:{start.line + 1}:{start.character + 1}: {heading}\n"
        f"{''.join(pieces)}\n{blank_under(pieces[:before])}{caret}"
    )
