"""`relavium-lsp graph`: draw the workflow's graph (docs/cli.md, "graph").

`--format mermaid` (the default: what a pull request renders), `dot` (Graphviz), `json` (the
graph JSON, a contract for editors) or `html` (one self-contained page). `--dry-run` runs the
workflow first, with the samples `run` would use (`--scope FILE`, the configuration's
`sample-scope`, the sidecar, else synthesized), and colours each node by its status.

A file with errors still draws what its model holds (a note on stderr says how many errors); a
file with no workflow to draw (unreadable YAML, an agent file) exits 2 with the reason, as do I/O
and samples errors. With `--dry-run`, exit 1 when a node failed, as `run` does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.checks.analyze import analyze
from analysis.diagnostics import Severity
from analysis.document.source import SourceText
from analysis.document.yaml_profile import too_large
from analysis.dryrun.launch import DryRunError, run_whole
from analysis.dryrun.results import WorkflowRun
from analysis.ide.graph_formats import TEXT_FORMATS, render_text
from analysis.ide.workflow_graph import NotDrawable, result_graph
from analysis.project.config import ConfigError, configured_sample_scope
from analysis.project.files import SourceTooLarge, read_source
from server.cli.console import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, print_safely

NAME = "graph"
HELP = ("Draw the workflow's graph (nodes, control and data edges, parallel groups, branch "
        "gating, leaks; with --dry-run each node's status) as Mermaid, dot, JSON or HTML.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--format", choices=TEXT_FORMATS, default="mermaid")
    parser.add_argument("--dry-run", action="store_true",
                        help="dry-run the workflow and colour each node by its status")
    parser.add_argument("--scope", metavar="FILE.json",
                        help="the samples of the dry run (as `run --scope`)")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="write the graph to OUT instead of standard output")


def main(args: argparse.Namespace) -> int:
    if args.scope is not None and not args.dry_run:
        print("relavium-lsp graph: --scope is for --dry-run: add --dry-run or drop --scope",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        text = read_source(args.file)
    except SourceTooLarge as error:
        refusal = too_large(SourceText(""), error.size).message
        print_safely(f"relavium-lsp graph: {args.file}: nothing to draw: {refusal}", sys.stderr)
        return EXIT_USAGE
    except (OSError, UnicodeDecodeError) as error:
        print_safely(f"relavium-lsp graph: {args.file}: cannot read it ({error})", sys.stderr)
        return EXIT_USAGE
    result = analyze(text, args.file)
    run: WorkflowRun | None = None
    try:
        model = result_graph(result)  # refuses a file with nothing to draw before any run
        if args.dry_run:
            from sandbox import WorkerPool

            with WorkerPool() as pool:
                explicit = args.scope or configured_sample_scope(Path(args.file))
                run = run_whole(result, args.file, explicit, pool)
            model = result_graph(result, run)
    except (NotDrawable, DryRunError, ConfigError) as error:
        print_safely(f"relavium-lsp graph: {args.file}: {error}", sys.stderr)
        return EXIT_USAGE
    errors = sum(1 for d in result.diagnostics if d.severity == Severity.ERROR)
    if errors and run is None:  # a dry run's notes say it already
        print_safely(f"note: {args.file} has {errors} error(s) (see `relavium-lsp check`): the "
                     "graph shows what its model holds", sys.stderr)
    if run is not None:
        for note in run.notes:
            print_safely(f"note: {note}", sys.stderr)
    title = f"{model.workflow_id or Path(args.file).name} · workflow graph"
    # UTF-8 whatever the locale (an id may be non-ASCII); a lone surrogate cannot be encoded
    drawn = render_text(model, args.format, title).encode("utf-8", "replace")
    if args.output is not None:
        try:
            Path(args.output).write_bytes(drawn)
        except OSError as error:
            print_safely(f"relavium-lsp graph: {args.output}: cannot write it ({error})",
                         sys.stderr)
            return EXIT_USAGE
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(drawn)
        sys.stdout.buffer.flush()
    return EXIT_FAILURE if run is not None and not run.ok else EXIT_OK
