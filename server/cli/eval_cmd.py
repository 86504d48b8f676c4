"""`relavium-lsp eval`: evaluate one bare expression in the capped sandbox.

`--scope FILE` is either of two formats, told apart by their keys (docs/cli.md, "`eval`"):
the eval scope (JSON, every part optional)::

    {"inputs": {}, "ctx": {}, "run": {"outputs": {}}, "branches": [],
     "secret_inputs": [], "secret_ctx": []}

or a samples file, as `run --scope` takes (`analysis.dryrun.samples`: `outputs` for `run.outputs`,
`nodes` per-node overrides, which `--node ID` lays over the rest, `notes`; JSON or YAML). A file
with keys only the eval scope has (`secret_inputs`, `secret_ctx`) and keys only a samples file has
(`outputs`, `nodes`, `notes`) is refused as a usage error; one with only the keys both share
(`inputs`, `ctx`, `run`, `branches`) means the same in either.

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
from pathlib import Path
from typing import Any

from analysis.document.display import blank_under, shown_pieces
from analysis.document.source import code_points_in, utf16_length
from analysis.dryrun.samples import (
    SAMPLE_KEYS,
    Samples,
    SampleScopeError,
    load_samples,
    parse_samples,
)
from sandbox import ErrorDetail, Scope, ScopeError, WorkerPool
from sandbox.scope import MAX_SCOPE_DEPTH, SCOPE_FIELDS
from sandbox.syntax import LINE_TERMINATOR
from server.cli.console import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, print_json, print_safely

NAME = "eval"
HELP = "Evaluate a bare expression in the capped sandbox."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", required=True, choices=("condition", "transform", "merge"))
    parser.add_argument("--expr", required=True, metavar="SOURCE")
    parser.add_argument(
        "--scope", metavar="FILE",
        help="the values the expression reads: an eval scope (JSON: inputs, ctx, run.outputs, "
             "branches, secret_inputs, secret_ctx) or a samples file as `run --scope` takes "
             "(JSON or YAML: inputs, ctx, outputs, branches, nodes); see docs/cli.md")
    parser.add_argument(
        "--node", metavar="ID",
        help="with a samples --scope, lay node ID's overrides (its `nodes` entry) over the rest")
    parser.add_argument("--format", choices=("text", "json"), default="text")


# The keys only one of the two --scope formats has; the others (inputs, ctx, run, branches) mean
# the same in both.
EVAL_SCOPE_ONLY = frozenset(SCOPE_FIELDS) - frozenset(SAMPLE_KEYS) - {"run"}
SAMPLES_ONLY = frozenset(SAMPLE_KEYS) - frozenset(SCOPE_FIELDS)
YAML_SUFFIXES = (".yaml", ".yml")


def load_scope(path: str | None, node: str | None = None) -> Scope:
    """The scope file, in either format, as a Scope; raises ScopeError with the file and field
    named."""
    if path is None:
        if node is not None:
            raise ScopeError("--node picks a node's overrides in a samples --scope file; give one")
        return Scope()
    if path.lower().endswith(YAML_SUFFIXES):
        # An eval scope is JSON, so a YAML file can only be samples.
        return _from_samples(load_samples(Path(path), "explicit"), node)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        document = json.loads(text, parse_constant=_reject_constant)
    except OSError as error:
        raise ScopeError(f"{path}: cannot read: {error.strerror}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ScopeError(f"{path}: not valid JSON: {error}") from None
    except RecursionError:
        # Python's JSON reader recurses per level; the scope admits far less nesting anyway.
        raise ScopeError(
            f"{path}: nested deeper than {MAX_SCOPE_DEPTH} levels; flatten it"
        ) from None
    keys = set(document) if isinstance(document, dict) else set()
    if keys & EVAL_SCOPE_ONLY and keys & SAMPLES_ONLY:
        raise ScopeError(
            f"{path}: mixes the eval scope format ({', '.join(sorted(keys & EVAL_SCOPE_ONLY))}) "
            f"and the samples format ({', '.join(sorted(keys & SAMPLES_ONLY))}); keep one: "
            "`run.outputs` and secret_inputs/secret_ctx for an eval scope, or `outputs` (and "
            "`nodes`) for samples (docs/cli.md)"
        )
    if keys & SAMPLES_ONLY or node is not None:
        return _from_samples(parse_samples(text, path, "explicit", is_json=True), node)
    try:
        return Scope.from_json(document)
    except ScopeError as error:
        raise ScopeError(f"{path}: {error}") from None


def _from_samples(samples: Samples, node: str | None) -> Scope:
    """A samples file's values as the scope an expression reads (node `node`'s overrides laid
    over them); the checks the eval scope makes (JSON values, nesting) hold for them too."""
    if node is not None:
        if node not in samples.nodes:
            listed = ", ".join(sorted(samples.nodes)) or "none"
            raise ScopeError(f"{samples.path}: --node {node}: no such entry under `nodes` "
                             f"(entries: {listed})")
        samples = samples.for_node(node)
    document: dict[str, Any] = {"inputs": samples.inputs, "ctx": samples.ctx,
                                "run": {"outputs": samples.outputs}}
    if samples.branches is not None:
        document["branches"] = samples.branches
    try:
        return Scope.from_json(document)
    except ScopeError as error:
        raise ScopeError(f"{samples.path}: {error}") from None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON; use null or a string")


def main(args: argparse.Namespace) -> int:
    try:
        scope = load_scope(args.scope, args.node)
    except (ScopeError, SampleScopeError) as error:
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
