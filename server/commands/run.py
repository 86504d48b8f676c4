"""`relavium-lsp run`: evaluate one node's expression with a sample scope."""

import argparse

from server.commands import not_implemented

NAME = "run"
HELP = "Evaluate a node's expression in the sandbox with a sample scope."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--node", required=True, metavar="ID")
    parser.add_argument("--scope", metavar="FILE.json")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def main(args: argparse.Namespace) -> int:
    return not_implemented(NAME)
