"""One module per `relavium-lsp` subcommand; each is thin glue over analysis/ and sandbox/."""

import sys

EXIT_USAGE = 2


def not_implemented(name: str) -> int:
    """Honest placeholder until the subcommand's issue lands: never pretend to succeed."""
    print(f"relavium-lsp {name}: not implemented yet", file=sys.stderr)
    return EXIT_USAGE
