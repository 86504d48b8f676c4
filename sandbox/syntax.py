"""Parse-only check that a bare expression compiles exactly as the evaluator compiles it.

QuickJS's own parser is the only judge, so the check reads every source as the engine does
(HTML-like comments `<!--` and line-leading `-->`, template literal revision, regular expressions
versus division). It compiles the source twice, inside a script that throws before its only
statement runs, so nothing authored ever executes:

1. in the evaluator's wrapper, `return (⏎source⏎);` — the engine's message and position are
   what the workflow author sees;
2. in the same wrapper with brackets, `return [⏎source⏎];`. Exactly one expression compiles in
   both. A source that closes the wrapper early (`1)}); x=1; (function(){(1`) must contain a
   `)` the wrapper did not open, which no bracket wrapper accepts, and a `]` would fail the first
   compile: so a source passing both cannot leave the wrapper, whatever its comments hide.
   A source that surely cannot leave it (`_cannot_leave_the_wrapper`: most real expressions)
   is compiled in the first wrapper only.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

# The binding itself: the `quickjs` package around it only re-exports Context and JSException and
# imports a thread pool (concurrent.futures, logging) for its Function helper, which a syntax
# check has no use for and every `relavium-lsp check` paid at start-up.
import _quickjs as quickjs

from sandbox.authored import ALL_BINDINGS, SOURCE_FIRST_LINE, authored_script
from sandbox.limits import MEMORY_LIMIT_BYTES, STACK_LIMIT_BYTES

NOT_ONE_EXPRESSION = "expected exactly one expression"
# A parser message may quote one token; an author's megabyte-long identifier stays out of it.
MESSAGE_LIMIT = 160

# Every JavaScript line terminator, CRLF counted once: the engine numbers lines this way.
LINE_TERMINATOR = re.compile("\r\n|[\n\r\u2028\u2029]")
_ENGINE_POSITION = re.compile(r"<input>:(\d+):(\d+)")
# How the parser reports a cap it hit. Only the parser runs in the parse-only context (the script
# throws before its one statement), so these first lines are the engine's, never authored text.
MEMORY_MARKERS = ("InternalError: out of memory", "InternalError: string too long", "null")
STACK_MARKERS = ("RangeError: Maximum call stack size exceeded", "InternalError: stack overflow")


@dataclass(frozen=True)
class SyntaxProblem:
    """Why `source` is not one valid expression, and where (code-point offset into `source`)."""

    offset: int
    message: str
    # Set when the parser hit a sandbox cap rather than a grammar error: the evaluation then
    # fails with that reason (`stack`/`memory`), as the engine compiling it would.
    cap: Literal["memory", "stack"] | None = None
    # True when the engine's own wrapper compiles the source although it is not one expression
    # (it closes the wrapper's parenthesis early): the engine runs it, the sandbox refuses it.
    engine_compiles: bool = False


class _ThreadParsers(threading.local):
    """QuickJS runtimes must not be shared between threads."""

    def __init__(self) -> None:
        self.context = _parse_only_context()


def _parse_only_context() -> quickjs.Context:
    context = quickjs.Context()
    # The evaluator's caps: an expression too deep for its parser stack fails here as well.
    context.set_max_stack_size(STACK_LIMIT_BYTES)
    context.set_memory_limit(MEMORY_LIMIT_BYTES)
    return context


_parsers = _ThreadParsers()


class _CompiledSources:
    """Sources already found to compile as exactly one expression, most recent last, at most
    `limit` characters of them in all. The verdict depends on the text alone (same parser, same
    caps), and the two compiles were about a sixth of an evaluation (bench/sandbox.py) that a
    dry run or a lens repeats with the same expression. Only passes are kept: a failure is rare
    and its message is recomputed."""

    def __init__(self, limit: int) -> None:
        self._sources: OrderedDict[str, None] = OrderedDict()
        self._size = 0
        self._limit = limit
        self._lock = threading.Lock()

    def has(self, source: str) -> bool:
        with self._lock:
            if source not in self._sources:
                return False
            self._sources.move_to_end(source)
            return True

    def add(self, source: str) -> None:
        if len(source) > self._limit:
            return
        with self._lock:
            if source in self._sources:
                return
            self._sources[source] = None
            self._size += len(source)
            while self._size > self._limit:
                oldest, _ = self._sources.popitem(last=False)
                self._size -= len(oldest)


# 1 Mi characters: thousands of typical expressions, a few MiB of memory at most.
COMPILED_SOURCES_LIMIT = 1 << 20
_compiled = _CompiledSources(COMPILED_SOURCES_LIMIT)


def check_syntax(source: str) -> SyntaxProblem | None:
    """None when the engine would compile `source` as exactly one expression, else the problem.

    Safe to call from any thread; each thread reuses its own parse-only runtime.
    """
    if _compiled.has(source):
        return None
    problem = _engine_problem(source, "()")
    if problem is not None:
        return problem
    if _cannot_leave_the_wrapper(source):
        _compiled.add(source)
        return None
    problem = _engine_problem(source, "[]")
    if problem is None:
        _compiled.add(source)
        return None
    # The engine's wrapper compiled a breakout, which may have declared globals (declarations
    # are instantiated before the script's first statement throws): start the next check from a
    # clean context.
    _parsers.context = _parse_only_context()
    if problem.cap is not None:
        return problem
    return SyntaxProblem(offset=problem.offset, message=NOT_ONE_EXPRESSION, engine_compiles=True)


# What can hide a parenthesis from a plain left-to-right reading: a comment, a regular expression,
# a template, an escape (`/`, a backtick, a backslash), an HTML-like comment.
_HIDES_PARENTHESES = re.compile(r"[/`\\]|<!--|-->")
# With none of those, every quote in code starts a string that ends at the next same quote.
_STRING_LITERAL = re.compile("'[^']*'|\"[^\"]*\"")
_PARENTHESIS = re.compile(r"[()]")


def _cannot_leave_the_wrapper(source: str) -> bool:
    """True when `source`, having compiled in the engine's wrapper, is surely one expression
    there, so the bracket compile would pass too. Leaving the wrapper takes a `)` token of the
    source's own that closes `return (`; the first compile passed, so its paren tokens balance.
    Without a `)` at all there is no such token; without anything that hides one (strings aside,
    which are skipped), every parenthesis outside a string is a token, and a depth that never
    falls below zero keeps them all inside the wrapper's."""
    if ")" not in source:
        return True
    if _HIDES_PARENTHESES.search(source):
        return False
    code = _STRING_LITERAL.sub("", source)
    if "'" in code or '"' in code:
        return False  # (unterminated: the first compile refused it already)
    depth = 0
    for parenthesis in _PARENTHESIS.findall(code):
        depth += 1 if parenthesis == "(" else -1
        if depth < 0:
            return False
    return True


def _engine_problem(source: str, brackets: str) -> SyntaxProblem | None:
    script = authored_script(source, ALL_BINDINGS, parse_only=True, brackets=brackets)
    # Compiled through a JSON string literal, as the evaluator does, so NUL characters and lone
    # surrogates reach the parser intact instead of failing in the host binding.
    try:
        _parsers.context.eval(f"(0, eval)({json.dumps(script)})")
    except quickjs.JSException as error:
        return _problem_from_engine(source, str(error))
    raise AssertionError("the parse-only script completed instead of throwing")  # pragma: no cover


def _problem_from_engine(source: str, report: str) -> SyntaxProblem | None:
    if report.partition("\n")[0] == "0":
        return None  # the script compiled and reached its leading `throw 0`
    first_line, _, frames = report.partition("\n    at ")
    name, _, message = first_line.partition(": ")
    if not message:
        message = name
    message = message.replace("\x00", "")
    if len(message) > MESSAGE_LIMIT:
        message = message[: MESSAGE_LIMIT - 1] + "…"
    position = _ENGINE_POSITION.match(frames)
    offset = 0
    if position is not None:
        offset = offset_of_engine_position(source, int(position[1]), int(position[2]))
    return SyntaxProblem(offset=offset, message=message, cap=_cap_tripped(first_line))


def _cap_tripped(first_line: str) -> Literal["memory", "stack"] | None:
    if first_line.startswith(MEMORY_MARKERS):
        return "memory"
    if first_line.startswith(STACK_MARKERS):
        return "stack"
    return None


def offset_of_engine_position(source: str, engine_line: int, engine_column: int) -> int:
    """Code-point offset of a 1-based engine line and 1-based UTF-8 byte column."""
    line_index = engine_line - SOURCE_FIRST_LINE
    if line_index < 0:
        return 0
    line_start = 0
    for _ in range(line_index):
        terminator = LINE_TERMINATOR.search(source, line_start)
        if terminator is None:
            return len(source)  # the error sits on the wrapper's closing line
        line_start = terminator.end()
    return line_start + _code_points_within(source, line_start, engine_column - 1)


def _code_points_within(text: str, start: int, byte_count: int) -> int:
    """How many code points of `text[start:]` fit in `byte_count` UTF-8 bytes.

    Both parsers see lone surrogates as 3-byte sequences, so this counts them that way.
    """
    count = 0
    for char in text[start:]:
        code = ord(char)
        byte_count -= 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        if byte_count < 0:
            break
        count += 1
    return count
