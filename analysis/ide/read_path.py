"""Literal read paths in text: `run.outputs["classify"].labels[0].name`, `inputs.issue?.title`,
`branches[1]` — read from the characters alone, so half-typed text (which does not parse yet)
works for completion, and hover asks the same questions of a whole expression.

Contract:
- Two dialects. `EXPRESSION`: JavaScript member chains from a scope binding (`inputs`, `ctx`,
  `run`, `branches`): `.name`, `?.name`, `[0]`, `["key"]` / `['key']` (and `?.[…]`), blanks
  around the punctuation. `TEMPLATE`: a `{{ }}` reference as the engine's lexer and path walker
  read it (packages/core/src/interpolation/references.ts parseHead and path.ts getByPath @
  839f2bd): `inputs.NAME`, `ctx.NAME`, `run.outputs["ID"]` heads, then `.name` (letters, digits,
  `_`, `-`), `[0]`, `["key"]`, no blanks around dots.
- `typing_at(prefix, dialect)` → the `Typing` (the read whose members are wanted, what is typed
  of the member's name, whether inside `["`) when `prefix` (text up to the cursor) ends in a
  member being typed; None otherwise. The read starts at a binding no `.`, name character, `)`
  or `]` precedes.
- `read_at(text, index, dialect)` → the read through the path segment under `index` (a name, a
  quoted key, an index), with that segment's span; None when `index` is on no segment (or on
  the binding itself). Callers rule out strings, comments and shadowed bindings: text alone
  cannot.
Offsets are indices into the text given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

PathKey = str | int


class Dialect(Enum):
    EXPRESSION = "expression"
    TEMPLATE = "template"


@dataclass(frozen=True)
class ReadPath:
    root: str
    path: tuple[PathKey, ...]
    start: int  # where the binding starts
    end: int  # where the read ends (after its last segment)


@dataclass(frozen=True)
class Typing:
    read: ReadPath  # the value whose members are offered
    typed: str  # the member name typed so far
    quote: str | None  # the key's quote when typed inside `["`, else None (after a dot)
    member_start: int  # where the member access starts: its `.` (or `?.`) or `[`


@dataclass(frozen=True)
class ReadAt:
    read: ReadPath  # through the segment under the index
    segment: tuple[int, int]  # that segment's name, key or index characters


_WS = r"[ \t]*"
_BINDING = r"(?<![A-Za-z0-9_$.)\]])(inputs|ctx|run|branches)(?![A-Za-z0-9_$])"
_KEY = r"(?:\"[^\"\\\n]*\"|'[^'\\\n]*')"

_EXPRESSION_SEGMENT = re.compile(
    rf"{_WS}(?:\?\.{_WS}|\.{_WS})(?P<name>[A-Za-z_$][A-Za-z0-9_$]*)"
    rf"|{_WS}(?:\?\.{_WS})?\[{_WS}(?:(?P<key>{_KEY})|(?P<index>\d+)){_WS}\]"
)
_TEMPLATE_SEGMENT = re.compile(
    rf"\.(?P<name>[A-Za-z0-9_-]+)|\[{_WS}(?:(?P<key>{_KEY})|(?P<index>\d+)){_WS}\]"
)
_EXPRESSION_TAIL = re.compile(
    rf"{_WS}(?P<dot>\?\.|\.){_WS}(?P<typed>[A-Za-z_$][A-Za-z0-9_$]*)?"
    rf"|{_WS}(?P<bracket>(?:\?\.{_WS})?\[){_WS}(?P<quote>[\"'])(?P<key>[^\"'\\\n]*)"
)
_TEMPLATE_TAIL = re.compile(
    rf"(?P<dot>\.)(?P<typed>[A-Za-z0-9_-]*)|(?P<bracket>\[){_WS}(?P<quote>[\"'])(?P<key>[^\"'\\\n]*)"
)
_TEMPLATE_HEAD = re.compile(
    rf"{_WS}(?P<root>inputs|ctx)\.(?P<name>[A-Za-z0-9_-]+)"
    rf"|{_WS}(?P<run>run)\.outputs\[{_WS}(?P<node>{_KEY}){_WS}\]"
)
_BINDINGS = re.compile(_BINDING)
# a path segment: its key, the span of the key's characters, where the segment ends
Segment = tuple[PathKey, tuple[int, int], int]
_Head = tuple[str, list[Segment], int, int]


def _segments(text: str, position: int, dialect: Dialect) -> list[Segment]:
    """The path segments from `position` on: (key, its characters' span, the segment's end)."""
    pattern = _EXPRESSION_SEGMENT if dialect is Dialect.EXPRESSION else _TEMPLATE_SEGMENT
    found = []
    while (match := pattern.match(text, position)) is not None:
        if match.group("name") is not None:
            key: PathKey = match.group("name")
            span = match.span("name")
        elif match.group("key") is not None:
            key = match.group("key")[1:-1]
            span = (match.start("key") + 1, match.end("key") - 1)
        else:
            key = int(match.group("index"))
            span = match.span("index")
        found.append((key, span, match.end()))
        position = match.end()
    return found


def _heads(text: str, dialect: Dialect) -> list[_Head]:
    """(binding, the segments its head already reads, where it starts, where the head ends)."""
    if dialect is Dialect.EXPRESSION:
        return [(match.group(1), [], match.start(1), match.end(1))
                for match in _BINDINGS.finditer(text)]
    head = _TEMPLATE_HEAD.match(text)
    if head is None:
        return []
    if head.group("run") is not None:
        node = (head.start("node") + 1, head.end("node") - 1)
        return [("run", [("outputs", node, node[0]), (text[node[0]:node[1]], node, head.end())],
                 head.start("run"), head.end())]
    return [(head.group("root"), [(head.group("name"), head.span("name"), head.end())],
             head.start("root"), head.end())]


def typing_at(prefix: str, dialect: Dialect) -> Typing | None:
    tail_pattern = _EXPRESSION_TAIL if dialect is Dialect.EXPRESSION else _TEMPLATE_TAIL
    for root, head, start, head_end in reversed(_heads(prefix, dialect)):
        segments = head + _segments(prefix, head_end, dialect)
        # the name being typed reads as a last segment: the member is before it
        if segments and segments[-1][2] == len(prefix) and len(segments) > len(head):
            segments.pop()
        end = segments[-1][2] if segments else head_end
        tail = tail_pattern.fullmatch(prefix, end)
        if tail is None:
            continue
        read = ReadPath(root, tuple(key for key, _, _ in segments), start, end)
        if tail.group("dot") is not None:
            return Typing(read, tail.group("typed") or "", None, tail.start("dot"))
        return Typing(read, tail.group("key"), tail.group("quote"), tail.start("bracket"))
    return None


def read_at(text: str, index: int, dialect: Dialect) -> ReadAt | None:
    for root, head, start, head_end in _heads(text, dialect):
        if start > index:
            break
        segments = head + _segments(text, head_end, dialect)
        for position, (_, span, end) in enumerate(segments):
            if span[0] <= index <= span[1] and (position or root != "run"):
                path = tuple(key for key, _, _ in segments[: position + 1])
                return ReadAt(ReadPath(root, path, start, end), span)
    return None
