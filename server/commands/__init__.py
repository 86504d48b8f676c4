"""One module per `relavium-lsp` subcommand; each is thin glue over analysis/ and sandbox/."""

import sys
from typing import TextIO

EXIT_USAGE = 2


def not_implemented(name: str) -> int:
    """Honest placeholder until the subcommand's issue lands: never pretend to succeed."""
    print(f"relavium-lsp {name}: not implemented yet", file=sys.stderr)
    return EXIT_USAGE


def print_safely(text: str, stream: TextIO | None = None) -> None:
    """Print text that may hold a lone surrogate (a JavaScript string can), escaped."""
    print(text.encode("utf-8", "backslashreplace").decode("utf-8"), file=stream or sys.stdout)
