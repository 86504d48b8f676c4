"""The one text both the parse-only check and the evaluator compile an authored expression in.

The engine wraps a bare expression in parentheses inside a strict function, so `{ ...a }` is an
object literal and a trailing `;` is a syntax error. Keeping the wrapper in one place guarantees
that `check_syntax` and `evaluate` agree on what parses.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

# The authored source starts at the first column of this (1-based) engine line.
SOURCE_FIRST_LINE = 3

# Every binding an expression can see; `branches` exists for merge only.
ALL_BINDINGS = ("inputs", "ctx", "run", "branches")


def authored_script(
    source: str, bindings: Sequence[str], *, parse_only: bool = False, brackets: str = "()"
) -> str:
    """A strict script whose completion value is the authored function.

    The function takes the scope records as positional arguments and rebinds them as `const`,
    so a write to a binding throws. With `parse_only`, the script throws before its only
    expression statement runs: compiling it reports syntax errors and executes nothing authored.
    `brackets` other than the engine's parentheses serve the one-expression check only.
    """
    before, after = _wrapper(tuple(bindings), parse_only, brackets)
    return before + source + after


@cache
def _wrapper(bindings: tuple[str, ...], parse_only: bool, brackets: str) -> tuple[str, str]:
    """The script's text before and after the source (the same for every source: built once)."""
    header = '"use strict"; throw 0;' if parse_only else '"use strict";'
    consts = ", ".join(f"{name} = arguments[{index}]" for index, name in enumerate(bindings))
    opening, closing = brackets[0], brackets[1]
    # The source sits alone between newlines so that a trailing `//` comment cannot swallow
    # the closing parenthesis and engine line numbers map straight back to source lines.
    return f"{header}\n(function () {{ const {consts}; return {opening}\n", f"\n{closing}; }})"
