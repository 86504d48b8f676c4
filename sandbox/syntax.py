"""Parse-only check that a bare expression compiles exactly as the evaluator compiles it.

Two parsers must agree. The engine's own parser compiles the authored function inside a script
that throws before its only statement runs, so nothing authored ever executes; its message and
position are what the workflow author sees. tree-sitter-javascript then confirms the source is
exactly one expression, refusing text that closes the wrapper and appends statements of its own
(`1)}); x=1; (function(){(1`), which the engine alone would accept.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import Literal

import quickjs
import tree_sitter_javascript
from tree_sitter import Language, Node, Parser

from sandbox.authored import ALL_BINDINGS, SOURCE_FIRST_LINE, authored_script
from sandbox.limits import MEMORY_LIMIT_BYTES, STACK_LIMIT_BYTES

NOT_ONE_EXPRESSION = "expected exactly one expression"
# A parser message may quote one token; an author's megabyte-long identifier stays out of it.
MESSAGE_LIMIT = 160

_JS_LANGUAGE = Language(tree_sitter_javascript.language())
# Every JavaScript line terminator, CRLF counted once: the engine numbers lines this way.
_LINE_TERMINATOR = re.compile("\r\n|[\n\r\u2028\u2029]")
_ENGINE_POSITION = re.compile(r"<input>:(\d+):(\d+)")
# The tree-sitter view: the same parentheses, the source alone on its lines.
_TREE_PREFIX = "(\n"
_TREE_SUFFIX = "\n)"
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


class _ThreadParsers(threading.local):
    """QuickJS runtimes and tree-sitter parsers must not be shared between threads."""

    def __init__(self) -> None:
        self.context = _parse_only_context()
        self.tree_parser = Parser(_JS_LANGUAGE)


def _parse_only_context() -> quickjs.Context:
    context = quickjs.Context()
    # The evaluator's caps: an expression too deep for its parser stack fails here as well.
    context.set_max_stack_size(STACK_LIMIT_BYTES)
    context.set_memory_limit(MEMORY_LIMIT_BYTES)
    return context


_parsers = _ThreadParsers()


def check_syntax(source: str) -> SyntaxProblem | None:
    """None when the engine would compile `source` as exactly one expression, else the problem.

    Safe to call from any thread; each thread reuses its own parse-only runtime.
    """
    problem = _engine_problem(source)
    if problem is not None:
        return problem
    problem = _structure_problem(source)
    if problem is not None:
        # A compiled wrapper breakout may have declared globals (declarations are instantiated
        # before the script's first statement throws); start the next check from a clean context.
        _parsers.context = _parse_only_context()
    return problem


def _engine_problem(source: str) -> SyntaxProblem | None:
    script = authored_script(source, ALL_BINDINGS, parse_only=True)
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
    offset = 0 if position is None else _offset(source, int(position[1]), int(position[2]))
    return SyntaxProblem(offset=offset, message=message, cap=_cap_tripped(first_line))


def _cap_tripped(first_line: str) -> Literal["memory", "stack"] | None:
    if first_line.startswith(MEMORY_MARKERS):
        return "memory"
    if first_line.startswith(STACK_MARKERS):
        return "stack"
    return None


def _offset(source: str, engine_line: int, engine_column: int) -> int:
    """Code-point offset of a 1-based engine line and 1-based UTF-8 byte column."""
    line_index = engine_line - SOURCE_FIRST_LINE
    if line_index < 0:
        return 0
    line_start = 0
    for _ in range(line_index):
        terminator = _LINE_TERMINATOR.search(source, line_start)
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


def _structure_problem(source: str) -> SyntaxProblem | None:
    # tree-sitter takes NUL for the end of input; the engine allows it only where a space
    # would parse the same (strings, templates, comments, regular expressions).
    text = f"{_TREE_PREFIX}{source.replace(chr(0), ' ')}{_TREE_SUFFIX}"
    encoded = text.encode("utf-8", "surrogatepass")
    root = _parsers.tree_parser.parse(encoded).root_node
    statements = [child for child in root.named_children if child.type != "comment"]
    only = statements[0] if len(statements) == 1 else None
    if (
        not root.has_error
        and only is not None
        and only.type == "expression_statement"
        and only.named_child_count == 1
        and _spans(only.named_children[0], encoded)
    ):
        return None
    return SyntaxProblem(offset=_tree_offset(root, encoded, source), message=NOT_ONE_EXPRESSION)


def _spans(node: Node, encoded: bytes) -> bool:
    return (
        node.type == "parenthesized_expression"
        and node.start_byte == 0
        and (node.end_byte == len(encoded))
    )


def _tree_offset(root: Node, encoded: bytes, source: str) -> int:
    """Where the one expression stops: the first parse error or the wrapper's early `)`."""
    candidates = []
    error = _first_error(root)
    if error is not None:
        candidates.append(error.start_byte)
    opening = _wrapper_parentheses(root)
    if opening is not None and opening.end_byte < len(encoded):
        candidates.append(opening.end_byte - 1)
    prefix_bytes = len(_TREE_PREFIX.encode())
    byte = max(min(candidates, default=prefix_bytes), prefix_bytes)
    return _code_points_within(source, 0, byte - prefix_bytes)


def _wrapper_parentheses(root: Node) -> Node | None:
    """The parenthesized expression that our opening `(` starts, if the tree has one."""
    node: Node | None = root
    while node is not None and node.start_byte == 0:
        if node.type == "parenthesized_expression":
            return node
        node = node.children[0] if node.children else None
    return None


def _first_error(node: Node) -> Node | None:
    if node.type == "ERROR" or node.is_missing:
        return node
    if not node.has_error:
        return None
    for child in node.children:
        found = _first_error(child)
        if found is not None:
            return found
    return None
