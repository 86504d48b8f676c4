"""What every `relavium-lsp` subcommand shares: its exit statuses and printing any text safely.

Every subcommand shares one exit-code contract: 0 success, 1 a finding (errors in `check`, a
sandbox error in `run`/`eval`), 2 usage or I/O errors.
"""

import json
import sys
from typing import Any, TextIO

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


def escape_lines(text: str) -> str:
    """Each line of `text` by `escape_line`, as `check` prints its text."""
    # Imported here: `serve` starts from server.cli.main, which imports this module, and answers
    # `initialize` before the analysis package is loaded.
    from analysis.document.display import escape_line

    return "\n".join(map(escape_line, text.split("\n")))


def print_safely(text: str, stream: TextIO | None = None) -> None:
    """Print text that may come from a workflow, a samples file or a JavaScript value (a lone
    surrogate included), every line escaped as `check` prints its text."""
    print(escape_lines(text), file=stream or sys.stdout)


def print_json(document: Any) -> None:
    """One line of JSON (ASCII), with what `escape_json_text` escapes, as `check`'s JSON."""
    print_json_text(json.dumps(document, ensure_ascii=True))


def print_json_text(dumped: str) -> None:
    """JSON text already written (ASCII), printed with what `escape_json_text` escapes."""
    from analysis.document.display import escape_json_text  # as in escape_lines

    print(escape_json_text(dumped))
