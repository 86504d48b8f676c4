"""`relavium-lsp serve`: the language server over stdio (default) or TCP."""

import argparse

from server.commands import not_implemented

NAME = "serve"
HELP = "Run the language server over stdio (default) or TCP."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stdio", action="store_true", help="use stdio (the default)")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address instead")


def main(args: argparse.Namespace) -> int:
    return not_implemented(NAME)
