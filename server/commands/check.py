"""`relavium-lsp check`: lint workflow files, for CI and the terminal."""

import argparse

from server.commands import not_implemented

NAME = "check"
HELP = "Check workflow files and print diagnostics."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories; - is stdin")


def main(args: argparse.Namespace) -> int:
    return not_implemented(NAME)
