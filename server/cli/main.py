"""The `relavium-lsp` command line: one console script, one module per subcommand."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from server.cli.console import EXIT_USAGE, escape_lines

# Each subcommand module exposes NAME, HELP, add_arguments(parser) and main(args) -> exit code.
# Only the module of the subcommand named is imported: `check` has no use for the dry run's LSP
# types or the sandbox's worker pool, and importing them cost most of a second. `serve` is the
# language server's own (server/lsp/), named here like the others so the command line does not
# depend on it; it also exposes run(argv), which parses its arguments without argparse.
SUBCOMMANDS = {
    "serve": "server.lsp.serve",
    "check": "server.cli.check",
    "run": "server.cli.run",
    "eval": "server.cli.eval_cmd",
    "schema": "server.cli.schema_cmd",
    "graph": "server.cli.graph",
}


class _VersionAction(argparse.Action):
    """`--version`, looking the installed version up only when asked (importlib.metadata scans
    the installed distributions: a twentieth of a second every other command need not pay)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from importlib.metadata import version

        print(f"{parser.prog} {version('relavium-lsp')}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """argparse's errors quote the arguments given, and those can be file names from a checkout
    (`check $(git ls-files)`): printed with every line escaped, as all other output is."""

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        super().exit(status, None if message is None else escape_lines(message))


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand, or with only `chosen` when it names one (argparse
    consults no other subparser then, and the top-level usage line is the same)."""
    names = [chosen] if chosen in SUBCOMMANDS else list(SUBCOMMANDS)
    modules: list[ModuleType] = [importlib.import_module(SUBCOMMANDS[name]) for name in names]
    parser = _Parser(
        prog="relavium-lsp",
        description="Language server, linter and dry-run tool for Relavium workflow YAML files.",
    )
    parser.add_argument("--version", action=_VersionAction,
                        help="show program's version number and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in modules:
        sub = subparsers.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(handler=module.main)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["serve"]:
        # Parsed on its own: the server answers `initialize` before importing anything heavy
        # (server.lsp.boot.early_initialize), argparse included.
        serve_code: int = importlib.import_module(SUBCOMMANDS["serve"]).run(arguments[1:])
        return serve_code
    parser = build_parser(arguments[0] if arguments else None)
    args = parser.parse_args(arguments)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    from analysis.checks.collector import tune_collector

    tune_collector()
    exit_code: int = args.handler(args)
    return exit_code


def program() -> NoReturn:
    """The console script and `python -m server`: `main`, then exit.

    A one-shot subcommand exits without tearing the interpreter down: freeing every object a
    check has cached, one by one, is work the operating system does at once when the process
    ends (a tenth of a second or more after 5,000 nodes). The output is flushed first; if that
    fails, the interpreter exits as usual and reports it. The server exits as usual.
    """
    code = main()
    if sys.argv[1:2] != ["serve"]:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            sys.exit(code)
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    program()
