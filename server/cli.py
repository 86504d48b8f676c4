"""The `relavium-lsp` command line: one console script, one module per subcommand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import version

from server.commands import EXIT_USAGE, check, eval_cmd, run, schema_cmd, serve

# Each subcommand module exposes NAME, HELP, add_arguments(parser) and main(args) -> exit code.
SUBCOMMANDS = (serve, check, run, eval_cmd, schema_cmd)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="relavium-lsp",
        description="Language server, linter and dry-run tool for Relavium workflow YAML files.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {version('relavium-lsp')}"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS:
        sub = subparsers.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(handler=module.main)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    from analysis import tune_collector

    tune_collector()
    exit_code: int = args.handler(args)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
