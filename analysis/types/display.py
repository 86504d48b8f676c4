"""A value type as a reader sees it in completion details and hovers: TypeScript-like and
bounded, so a schema of fifty properties still fits on a line.

Contract: `format_type(value_type, *, width=72)` never raises and returns at most `width`
characters (a floor of 24 keeps one property readable) plus the ` | … N more` of a union too wide
to show two options: `{ severity: "low" | "high"; topic?: string; … 12 more }`, `string[]`,
`(number | null)[]`, `{ [key: string]: unknown }` for an object whose other keys are unknown,
`{ … }` for an object none of whose members fit and `…` for any type with no room left.
`AnyValue` reads `unknown`, and so does a union holding it (`is_unknown`); `NoValue` reads
`never`; an integer is a `number` (JavaScript has no other).
Property names that are not identifiers are quoted. Only types are shown: a `Literals`' members
are the schema's `enum`/`const`, never a run's value.
"""

from __future__ import annotations

import json
import re

from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    BooleanType,
    JsonScalar,
    Literals,
    NoValue,
    NullType,
    NumberType,
    ObjectType,
    StringType,
    UndefinedType,
    Union,
    ValueType,
)

_MIN_WIDTH = 24
_LITERAL_CHARS = 24  # a longer enum member is cut: the type, not the text, is the point
_MIN_SHAPE = 4  # below this a literal, array or object has no room: it reads `…`
_ELIDED = "…"
_UNION_TAIL = " | … 99 more"  # the most a union shown in its room adds to it
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_NAMES: dict[type, str] = {
    AnyValue: "unknown", NoValue: "never", StringType: "string", NumberType: "number",
    BooleanType: "boolean", NullType: "null", UndefinedType: "undefined",
}


def format_type(value_type: ValueType, *, width: int = 72) -> str:
    width = max(width, _MIN_WIDTH)
    # Unions nested in arrays and unions may each pass their share by their ` | … N more`:
    # the rare type whose overshoots add up is drawn again in less room.
    room = width
    while len(text := _format(value_type, room)) > width + len(_UNION_TAIL) and room >= _MIN_SHAPE:
        room //= 2
    return text


def is_unknown(value_type: ValueType) -> bool:
    """`unknown`, alone or in a union (which it absorbs: `unknown | undefined` is unknown)."""
    if isinstance(value_type, Union):
        return any(is_unknown(option) for option in value_type.options)
    return isinstance(value_type, AnyValue)


def property_name(name: str) -> str:
    """A key as TypeScript writes it in a type: bare when an identifier, else quoted."""
    return name if _IDENTIFIER.match(name) else json.dumps(name, ensure_ascii=False)


def _shown_name(name: str, width: int) -> str:
    """A key as `property_name` writes it, a long one cut to a third of the object's room: the
    type, not the key, is the point."""
    room = min(_LITERAL_CHARS, max(width // 3, 1))
    return name if _IDENTIFIER.match(name) and len(name) <= room else _quoted(name, room)


def _format(value_type: ValueType, width: int) -> str:
    simple = _NAMES.get(type(value_type))
    if simple is not None:
        return simple
    if width < _MIN_SHAPE:
        return _ELIDED
    if isinstance(value_type, Literals):
        return _joined([_literal(value, width) for value in value_type.values], width)
    if isinstance(value_type, Union):
        return "unknown" if is_unknown(value_type) else _joined(_options(value_type, width), width)
    if isinstance(value_type, ArrayType):
        if _is_union(value_type.items):
            return f"({_format(value_type.items, width - 4)})[]"
        return f"{_format(value_type.items, width - 2)}[]"
    assert isinstance(value_type, ObjectType)
    return _object(value_type, width)


def _is_union(value_type: ValueType) -> bool:
    if isinstance(value_type, Literals):
        return len(value_type.values) > 1
    return (isinstance(value_type, Union) and not is_unknown(value_type)
            and len(_options(value_type, _MIN_WIDTH)) > 1)


def _options(union: Union, width: int) -> list[str]:
    """Each option once; `never` only when nothing else is left (`T | never` is `T`), and no
    literal a wider option holds (`string | "none"` is `string`)."""
    wide = {type(option) for option in union.options
            if isinstance(option, StringType | NumberType | BooleanType)}
    options: list[ValueType] = [
        option for option in union.options
        if not isinstance(option, NoValue) and not (
            isinstance(option, Literals) and all(_widened(value) in wide
                                                 for value in option.values))]
    # `undefined` last, as TypeScript prints an optional value: `"free" | "pro" | undefined`
    options.sort(key=lambda option: isinstance(option, UndefinedType))
    seen: list[str] = []
    for option in options or [NoValue()]:
        text = _format(option, width)
        if text not in seen:
            seen.append(text)
    return seen


def _quoted(text: str, shown_chars: int = _LITERAL_CHARS) -> str:
    """`text` as a JSON string of at most `shown_chars` characters inside its quotes, counted
    after escaping (a control character's `\\u001f` takes six)."""
    shown: list[str] = []
    used = 0
    for position, char in enumerate(text):
        escaped = json.dumps(char, ensure_ascii=False)[1:-1]
        room = shown_chars - (1 if position < len(text) - 1 else 0)
        if used + len(escaped) > room:
            return '"' + "".join(shown) + '…"'
        shown.append(escaped)
        used += len(escaped)
    return '"' + "".join(shown) + '"'


def _widened(value: JsonScalar) -> type:
    """The scalar type a literal belongs to (None's is no wider type's)."""
    if isinstance(value, bool):
        return BooleanType
    if isinstance(value, str):
        return StringType
    return NumberType if isinstance(value, int | float) else NullType


def _literal(value: JsonScalar, width: int) -> str:
    if isinstance(value, str):
        return _quoted(value, min(_LITERAL_CHARS, width - 2))
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _joined(parts: list[str], width: int) -> str:
    """`a | b | c`, or as many as fit and `… N more`."""
    text = " | ".join(parts)
    if len(text) <= width or len(parts) == 1:
        return text
    shown: list[str] = []
    for part in parts:
        more = f" | … {len(parts) - len(shown) - 1} more"
        if shown and len(" | ".join([*shown, part])) + len(more) > width:
            break
        shown.append(part)
    left = len(parts) - len(shown)
    return " | ".join(shown) + (f" | … {left} more" if left else "")


def _object(value_type: ObjectType, width: int) -> str:
    members = [
        f"{_shown_name(name, width)}{'' if name in value_type.required else '?'}: "
        f"{_format(member, width // 2)}"
        for name, member in value_type.properties
    ]
    if value_type.additional is not None and not isinstance(value_type.additional, NoValue):
        members.append(f"[key: string]: {_format(value_type.additional, width // 2)}")
    if not members:
        return "{}"
    text = "{ " + "; ".join(members) + " }"
    if len(text) <= width:
        return text
    shown: list[str] = []
    for member in members:
        left = len(members) - len(shown) - 1
        tail = f"; … {left} more }}" if left else " }"
        if len("{ " + "; ".join([*shown, member])) + len(tail) > width:
            break
        shown.append(member)
    if not shown:
        return "{ … }"
    left = len(members) - len(shown)
    return "{ " + "; ".join(shown) + (f"; … {left} more }}" if left else " }")
