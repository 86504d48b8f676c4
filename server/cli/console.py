"""What every `relavium-lsp` subcommand shares: its exit statuses and printing any text safely.

Every subcommand shares one exit-code contract: 0 success, 1 a finding (errors in `check`, a
sandbox error in `run`/`eval`), 2 usage or I/O errors.
"""

import sys
from typing import TextIO

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


def print_safely(text: str, stream: TextIO | None = None) -> None:
    """Print text that may hold a lone surrogate (a JavaScript string can), escaped."""
    print(text.encode("utf-8", "backslashreplace").decode("utf-8"), file=stream or sys.stdout)
