"""`relavium-lsp eval`: evaluate one expression in the sandbox."""

import argparse

from server.commands import not_implemented

NAME = "eval"
HELP = "Evaluate a bare expression in the capped sandbox."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", required=True, choices=("condition", "transform", "merge"))
    parser.add_argument("--expr", required=True, metavar="SOURCE")
    parser.add_argument("--scope", metavar="FILE.json")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def main(args: argparse.Namespace) -> int:
    return not_implemented(NAME)
