"""`relavium-lsp run`: dry-run the workflow, or one node's expression, with sample data.

The samples: `--scope FILE` if given, else the project configuration's `sample-scope`
(docs/configuration.md), else the sidecar `<stem>.samples.json|yaml` next to the workflow, else
synthesized from the workflow (see `analysis.dryrun.samples`).

Without `--node`: the whole workflow runs as the engine would run it (`analysis.dryrun.runner`);
`--format json` prints `{"ok", "nodes": [...], "notes"}`. With `--node ID`: the node's ancestors run
first, then its expression; `--format json` prints the `eval` JSON shape plus `node`, `kind` and
`scope` (the scope used, secrets denied). Exit 0 when nothing failed, 1 when a node failed, 2 on
usage, I/O, configuration or samples errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from analysis.document.source import SourceText
from analysis.document.yaml_profile import too_large
from analysis.dryrun.launch import DryRunError, evaluate, nothing_to_run, prepare, run_whole
from analysis.dryrun.presentation import failure_lines, node_line, summary_of
from analysis.dryrun.results import WorkflowRun
from analysis.dryrun.values import json_text
from analysis.dryrun.workflow_model import WorkflowModel, workflow_model
from analysis.project.config import ConfigError, configured_sample_scope
from analysis.project.files import SourceTooLarge, read_source
from sandbox import WorkerPool
from sandbox.pool import CORE_WORKERS
from server.cli.console import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, print_json_text, print_safely
from server.cli.project_agents import workspace_of
from server.cli.run_errors import ErrorsAside

if TYPE_CHECKING:
    from analysis.dryrun.launch import Analysed

NAME = "run"
HELP = "Dry-run the workflow (or one node's expression) in the sandbox with sample data."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--node", metavar="ID", help="run this node (after its ancestors)")
    parser.add_argument("--scope", metavar="FILE.json")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def main(args: argparse.Namespace) -> int:
    try:
        text = read_source(args.file)
    except SourceTooLarge as error:  # refused before it is read whole, as `check` refuses it
        refusal = too_large(SourceText(""), error.size).message
        print(f"relavium-lsp run: {args.file}: {nothing_to_run(refusal)}", file=sys.stderr)
        return EXIT_USAGE
    except (OSError, UnicodeDecodeError) as error:
        print_safely(f"relavium-lsp run: {args.file}: cannot read it ({error})", sys.stderr)
        return EXIT_USAGE
    # one worker per core, started now: they import while the file's model is built, and a
    # whole run's claimed nodes evaluate on all of them at once
    with WorkerPool(CORE_WORKERS, warm=True) as pool:
        # a node whose agent is in an agent file gets its output_schema (the same index as check)
        workspace = workspace_of(args.file)
        # a run evaluates the model alone; a file it cannot start is analysed in full, for the
        # first error that says why
        model = workflow_model(text, args.file, workspace)
        if model is None:
            from analysis.checks.analyze import analyze  # the checks: not on a run's own path

            result: Analysed = analyze(text, args.file, workspace=workspace)
        else:
            result = model
        try:
            explicit = args.scope or configured_sample_scope(Path(args.file))
            if args.node is None:
                return _whole(args, _run_whole(result, model, text, args.file, explicit, pool))
            sample, scope = prepare(result, args.file, args.node, explicit, pool)
        except (DryRunError, ConfigError) as error:
            print_safely(f"relavium-lsp run: {args.file}: {error}", sys.stderr)
            return EXIT_USAGE
        run = evaluate(pool, sample, scope, args.file)
    if args.format == "json":
        print_json_text(json_text(run.to_json()))
    else:
        print_safely(f"{args.node}: {run.scope_label}", sys.stderr)
        for note in run.to_json()["scope"]["notes"]:
            print_safely(f"note: {note}", sys.stderr)
        for line in run.compiler_lines():
            print_safely(line, sys.stderr)
        print_safely(run.outcome.to_text(), None if run.outcome.ok else sys.stderr)
    return EXIT_OK if run.outcome.ok else EXIT_FAILURE


def _run_whole(
    result: Analysed, model: WorkflowModel | None, text: str, path: str, explicit: str | None,
    pool: WorkerPool,
) -> WorkflowRun:
    """The whole run; of a model alone, with its errors counted by the full analysis aside,
    while the workers evaluate (its note is the same)."""
    if model is None:
        return run_whole(result, path, explicit, pool)
    errors = ErrorsAside(text, path)
    try:
        return run_whole(result, path, explicit, pool, errors=errors.count)
    finally:
        errors.abandon()


def _whole(args: argparse.Namespace, run: WorkflowRun) -> int:
    answer = run.to_json()
    if args.format == "json":
        print_json_text(json_text(answer))
    else:
        failures = failure_lines(run, args.file)
        for entry in answer["nodes"]:
            print_safely(node_line(entry))
            for line in failures.get(entry["id"], []):
                print_safely(line)
        for note in run.notes:
            print_safely(f"note: {note}", sys.stderr)
        print_safely(summary_of(run), sys.stderr)
    return EXIT_OK if run.ok else EXIT_FAILURE
