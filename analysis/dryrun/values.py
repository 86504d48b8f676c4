"""Values as they cross between the nodes of a dry run: JavaScript's `undefined` (a condition's
stored output), the JSON round trip, `===`, and the text a value is shown or answered as.

A dry run's values can nest deeper than Python's recursion limit (a chain of merges wraps its
input once per node) and share references (a ladder of `concat` merges doubles a value's leaves
at every step), so every walk here is iterative and `value_text` stops at its limit instead of
writing the whole value first."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

from sandbox.outcome import number_tag


class _Undefined:
    """A condition's stored output: present in the run's outputs map, but JavaScript `undefined`
    — dropped from `run.outputs` objects, `null` inside arrays."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()


def json_value(value: Any) -> Any:
    """A value as it comes back from a JSON round trip (what the next node sees)."""
    if value is UNDEFINED:
        return None
    tag = number_tag(value)
    if tag is not None:
        return 0 if tag == "-0" else None
    return value


def strictly_equal(left: Any, right: Any) -> bool:
    """JavaScript `===` over JSON values (`True == 1` is Python's, not JavaScript's)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return float(left) == float(right)
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    return left is None and right is None


def same_json(left: Any, right: Any) -> bool:
    """JSON equality without Python's `True == 1` (object key order does not matter)."""
    pending = [(left, right)]
    while pending:
        one, other = pending.pop()
        if one is other and isinstance(one, dict | list):
            continue  # a shared reference is equal to itself, however large
        if isinstance(one, dict) and isinstance(other, dict):
            if one.keys() != other.keys():
                return False
            pending.extend((one[key], other[key]) for key in one)
        elif isinstance(one, list) and isinstance(other, list):
            if len(one) != len(other):
                return False
            pending.extend(zip(one, other, strict=True))
        elif isinstance(one, dict | list) or isinstance(other, dict | list) or not strictly_equal(
            one, other
        ):
            return False
    return True


def value_text(value: Any, limit: int | None = None) -> str:
    """A stored value as compact JSON text (`undefined` for a condition's), clipped to `limit`
    characters with a closing `…` when given: only that much of the value is written out."""
    if value is UNDEFINED:
        return "undefined"
    tag = number_tag(value)
    if tag is not None:
        return tag
    if limit is None:
        return "".join(_chunks(value, encode_basestring))
    pieces: list[str] = []
    length = 0
    for piece in _chunks(value, encode_basestring):
        pieces.append(piece)
        length += len(piece)
        if length > limit:
            return "".join(pieces)[: limit - 1] + "…"
    return "".join(pieces)


def json_text(value: Any, *, ensure_ascii: bool = True, indent: int | None = None) -> str:
    """`json.dumps(value, ensure_ascii=..., indent=...)`, for a value nested too deeply for it
    as well."""
    try:
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    except RecursionError:
        encode = encode_basestring_ascii if ensure_ascii else encode_basestring
        return "".join(_chunks(value, encode, indent))


def _chunks(
    value: Any, encode_string: Callable[[str], str], indent: int | None = None
) -> Iterator[str]:
    """`json.dumps`'s text (its default separators, or `indent`'s lines), piece by piece,
    without recursion: the stack holds the text still to write (str) and the values still to
    encode with their depth."""
    stack: list[str | tuple[Any, int]] = [(value, 0)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
            continue
        node, depth = item
        if isinstance(node, dict | list):
            children = ([(key, child) for key, child in node.items() if child is not UNDEFINED]
                        if isinstance(node, dict) else
                        [(None, None if child is UNDEFINED else child) for child in node])
            if not children:
                yield "{}" if isinstance(node, dict) else "[]"
                continue
            opening, closing = ("{", "}") if isinstance(node, dict) else ("[", "]")
            inner = "" if indent is None else "\n" + " " * (indent * (depth + 1))
            stack.append(closing if indent is None else "\n" + " " * (indent * depth) + closing)
            for index in range(len(children) - 1, -1, -1):
                key, child = children[index]
                stack.append((child, depth + 1))
                lead = (opening if index == 0 else ", " if indent is None else ",") + inner
                if isinstance(node, dict):
                    lead += encode_string(key if isinstance(key, str) else json.dumps(key)) + ": "
                stack.append(lead)
        elif isinstance(node, str):
            yield encode_string(node)
        else:
            yield json.dumps(node)
