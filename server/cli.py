"""The `relavium-lsp` command line: one console script, one module per subcommand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from server.commands import EXIT_USAGE, serve


def build_parser() -> argparse.ArgumentParser:
    from importlib.metadata import version

    from server.commands import check, eval_cmd, run, schema_cmd

    # Each subcommand module exposes NAME, HELP, add_arguments(parser) and main(args) -> exit code.
    subcommands = (serve, check, run, eval_cmd, schema_cmd)
    parser = argparse.ArgumentParser(
        prog="relavium-lsp",
        description="Language server, linter and dry-run tool for Relavium workflow YAML files.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {version('relavium-lsp')}"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in subcommands:
        sub = subparsers.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(handler=module.main)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == [serve.NAME]:
        # Parsed on its own: the other subcommands import the analysis, and the server answers
        # `initialize` before importing anything heavy (server.early_initialize).
        return serve.run(arguments[1:])
    parser = build_parser()
    args = parser.parse_args(arguments)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    from analysis import tune_collector

    tune_collector()
    exit_code: int = args.handler(args)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
