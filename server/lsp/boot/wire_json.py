"""JSON from the wire, with its nesting bounded: `parse_message`.

`json.loads` recurses once per array or object level and raises RecursionError (the interpreter's
limit, ~1,000 levels less the caller's stack) where a client nests deeper; so would the reprs,
`json.dumps` and walks that later meet the value. No LSP message needs more than a dozen levels,
yet free-form members (`initializationOptions`, a `workspace/configuration` answer, command
arguments) carry whatever a user's settings hold, and VS Code sends a workspace's
`.vscode/settings.json` there even in an untrusted folder. Refusing such a message would leave the
editor without a server (it sends the settings in `initialize`) or a configuration request without
its answer, so the message is kept and only what lies deeper than `MAX_DEPTH` levels is replaced:
each array or object that would open level `MAX_DEPTH + 1` becomes the string `TOO_DEEP`, which
the settings reader reports by name like any value of the wrong type, and a typed LSP member
refuses like any string in the wrong place (−32602).

A message whose `[` and `{` (strings included) number `MAX_DEPTH` or fewer cannot be deeper and
goes straight to `json.loads`; otherwise a scan of its brackets, skipping strings with json's own
string scanner, measures the depth, and only a message that is deeper is read by `_read_capped`,
token by token with an explicit stack, accepting exactly what `json.loads` accepts (strings and
numbers are read by json itself).

Only the standard library: `relavium-lsp serve` reads its first message with this module before
anything else is imported (server.lsp.boot.early_initialize).
"""

from __future__ import annotations

import json
import logging
import re
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C reader json.loads uses
from typing import Any

logger = logging.getLogger("relavium-lsp")

# Levels of arrays and objects, the message object itself being level 1.
MAX_DEPTH = 64
TOO_DEEP = f"<a value nested deeper than {MAX_DEPTH} levels>"

# The characters the depth scan stops at; a string is skipped by json's own string scanner.
_DEPTH_MARK = re.compile(r'["\[\]{}]')
_TOKEN = re.compile(
    r'[ \t\n\r]*(?:(")|([\[{])|([\]}])|([,:])'
    r"|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null|NaN|-?Infinity))"
)
_TRAILING_SPACE = re.compile(r"[ \t\n\r]*\Z")


def parse_message(text: str) -> Any:
    """The JSON value of `text`, arrays and objects past `MAX_DEPTH` levels replaced by
    `TOO_DEEP`. Raises ValueError for text that is not JSON."""
    if text.count("[") + text.count("{") <= MAX_DEPTH or _depth(text) <= MAX_DEPTH:
        return json.loads(text)
    value = _read_capped(text)
    logger.warning("a message nested deeper than %d levels: what lies deeper was replaced by %r",
                   MAX_DEPTH, TOO_DEEP)
    return value


def _depth(text: str) -> int:
    """The deepest nesting of `text`'s arrays and objects, brackets in strings not counted. Exact
    for JSON; for text that is not JSON, exact up to where `json.loads` stops reading it."""
    depth = deepest = position = 0
    while (mark := _DEPTH_MARK.search(text, position)) is not None:
        position = mark.end()
        character = mark.group()
        if character == '"':
            try:
                position = scanstring(text, position)[1]
            except ValueError:  # json.loads stops at this string: nothing after it counts
                break
        elif character in ("[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


class _Level:
    """An array or object being read; `value` None past MAX_DEPTH (its contents are checked, not
    kept: its parent, if kept, receives TOO_DEEP)."""

    __slots__ = ("closer", "key", "value")

    def __init__(self, closer: str, value: list[Any] | dict[str, Any] | None) -> None:
        self.closer = closer
        self.value = value
        self.key: str | None = None  # an object's member name, read before its value

    def add(self, item: Any) -> None:
        if isinstance(self.value, list):
            self.value.append(item)
        elif isinstance(self.value, dict):
            assert self.key is not None
            self.value[self.key] = item


def _read_capped(text: str) -> Any:
    stack: list[_Level] = []
    result: Any = None
    value: Any
    # what may come next: "value", "value or close" (after `[`), "key", "key or close"
    # (after `{`), "colon", "comma or close"; "end" once the top value is read
    expect = "value"
    position = 0
    while expect != "end":
        token = _TOKEN.match(text, position)
        if token is None:
            raise ValueError(f"unexpected character at offset {position}")
        position = token.end()
        quote, opener, closer, punctuation, scalar = token.groups()
        string = None
        if quote is not None:
            string, position = scanstring(text, position)
        if closer is not None:
            if expect not in ("value or close", "key or close", "comma or close") or (
                closer != stack[-1].closer
            ):
                raise ValueError(f"unexpected {closer!r} at offset {token.start(3)}")
            level = stack.pop()
            value = level.value if level.value is not None else TOO_DEEP
        elif punctuation is not None:
            if punctuation == ":" and expect == "colon":
                expect = "value"
            elif punctuation == "," and expect == "comma or close":
                expect = "key" if stack[-1].closer == "}" else "value"
            else:
                raise ValueError(f"unexpected {punctuation!r} at offset {token.start(4)}")
            continue
        elif expect in ("key", "key or close"):
            if string is None:
                raise ValueError(f"expected a member name at offset {position}")
            stack[-1].key = string
            expect = "colon"
            continue
        elif expect not in ("value", "value or close"):
            raise ValueError(f"expected ',' or a closing bracket at offset {position}")
        elif opener is not None:
            container: list[Any] | dict[str, Any] | None = (
                ([] if opener == "[" else {}) if len(stack) < MAX_DEPTH else None
            )
            stack.append(_Level("]" if opener == "[" else "}", container))
            expect = "value or close" if opener == "[" else "key or close"
            continue
        else:
            value = string if quote is not None else json.loads(scalar)
        if stack:
            stack[-1].add(value)
            expect = "comma or close"
        else:
            result, expect = value, "end"
    if _TRAILING_SPACE.match(text, position) is None:
        raise ValueError(f"extra data at offset {position}")
    return result
