"""A value type as a reader sees it in completion details and hovers: TypeScript-like and
bounded, so a schema of fifty properties still fits on a line.

Contract: `format_type(value_type, *, width=72)` never raises and returns about `width`
characters (a floor of 24 keeps one property readable; members it must show, nested, may take
it past, never beyond three times `width`): `{ severity: "low" | "high"; topic?:
string; … 12 more }`, `string[]`, `(number | null)[]`, `{ [key: string]: unknown }` for an
object whose other keys are unknown. `AnyValue` reads `unknown`, and so does a union holding it
(`is_unknown`); `NoValue` reads `never`; an integer is a `number` (JavaScript has no other).
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
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_NAMES: dict[type, str] = {
    AnyValue: "unknown", NoValue: "never", StringType: "string", NumberType: "number",
    BooleanType: "boolean", NullType: "null", UndefinedType: "undefined",
}


def format_type(value_type: ValueType, *, width: int = 72) -> str:
    return _format(value_type, max(width, _MIN_WIDTH))


def is_unknown(value_type: ValueType) -> bool:
    """`unknown`, alone or in a union (which it absorbs: `unknown | undefined` is unknown)."""
    if isinstance(value_type, Union):
        return any(is_unknown(option) for option in value_type.options)
    return isinstance(value_type, AnyValue)


def property_name(name: str) -> str:
    """A key as TypeScript writes it in a type: bare when an identifier, else quoted."""
    return name if _IDENTIFIER.match(name) else json.dumps(name, ensure_ascii=False)


def _shown_name(name: str) -> str:
    """A key as `property_name` writes it, a long one cut: the type, not the key, is the point."""
    return name if _IDENTIFIER.match(name) and len(name) <= _LITERAL_CHARS else _quoted(name)


def _format(value_type: ValueType, width: int) -> str:
    simple = _NAMES.get(type(value_type))
    if simple is not None:
        return simple
    if isinstance(value_type, Literals):
        return _joined([_literal(value) for value in value_type.values], width)
    if isinstance(value_type, Union):
        return "unknown" if is_unknown(value_type) else _joined(_options(value_type, width), width)
    if isinstance(value_type, ArrayType):
        items = _format(value_type.items, width - 4)
        return f"({items})[]" if _is_union(value_type.items) else f"{items}[]"
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


def _quoted(text: str) -> str:
    """`text` as a JSON string of at most _LITERAL_CHARS shown characters inside its quotes,
    counted after escaping (a control character's `\u001f` takes six)."""
    shown: list[str] = []
    used = 0
    for position, char in enumerate(text):
        escaped = json.dumps(char, ensure_ascii=False)[1:-1]
        room = _LITERAL_CHARS - (1 if position < len(text) - 1 else 0)
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


def _literal(value: JsonScalar) -> str:
    if isinstance(value, str):
        return _quoted(value)
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
        f"{_shown_name(name)}{'' if name in value_type.required else '?'}: "
        f"{_format(member, max(width // 2, _MIN_WIDTH))}"
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
        tail = f"; … {len(members) - len(shown) - 1} more }}"
        if shown and len("{ " + "; ".join([*shown, member])) + len(tail) > width:
            break
        shown.append(member)
    left = len(members) - len(shown)
    return "{ " + "; ".join(shown) + (f"; … {left} more }}" if left else " }")
