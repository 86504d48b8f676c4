"""Reading a key of a typed value (`member_type`), and whether a value belongs to a type
(`admits`).

Objects in an expression's scope are JSON data: the records `inputs`, `ctx`, `run` and
`run.outputs` have no prototype, every value under them is an ordinary frozen object or array
(`sandbox/driver.js` `record`, `deepFreeze`; expression-sandbox-spec.md "Scope"). So a key an
object type does not declare reads `undefined`, except the names `Object.prototype` gives every
ordinary object, which read as unknown (a function) unless the reader knows the object has no
prototype.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    BooleanType,
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
from analysis.types.algebra import UNDEFINED_TYPE, join, options, same_literal


class _Undefined:
    """JavaScript's `undefined` as a value handed to `admits` (no JSON value is undefined)."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED = _Undefined()

# What every ordinary object inherits (ECMA-262 §20.1.3, with Annex B's accessors).
OBJECT_PROTOTYPE_KEYS = frozenset({
    "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString",
    "toString", "valueOf", "__proto__", "__defineGetter__", "__defineSetter__",
    "__lookupGetter__", "__lookupSetter__",
})
# A canonical array index: what `String(n)` gives for 0 <= n < 2**32 - 1.
_MAX_INDEX = 2**32 - 2
_STRING_LENGTH = NumberType(integer=True, minimum=0)


def array_index(key: str | int) -> int | None:
    """The array index a property key denotes (`"0"`, `0`), None for any other key."""
    if isinstance(key, int):
        return key if 0 <= key <= _MAX_INDEX else None
    if key == "0" or (key[:1] in "123456789" and key.isascii() and key.isdigit()):
        number = int(key) if key else -1
        return number if 0 <= number <= _MAX_INDEX else None
    return None


def _key_text(key: str | int) -> str:
    return str(key) if isinstance(key, int) else key


def member_type(base: ValueType, key: str | int, *, null_prototype: bool = False) -> ValueType:
    """The type of `base[key]`. Reading a key of null or undefined throws: `NoValue()`.
    `null_prototype`: the object is one of the scope's own records (no inherited keys)."""
    if not isinstance(base, Union):
        return _member_of(base, key, null_prototype)
    return join(*(_member_of(option, key, null_prototype) for option in options(base)))


def _member_of(base: ValueType, key: str | int, null_prototype: bool) -> ValueType:
    if isinstance(base, AnyValue):
        return AnyValue()
    if isinstance(base, NullType | UndefinedType):
        return NoValue()
    if isinstance(base, ObjectType):
        return _object_member(base, _key_text(key), null_prototype)
    if isinstance(base, ArrayType):
        return _sequence_member(key, base.items)
    if isinstance(base, StringType):
        return _sequence_member(key, StringType(min_length=1, max_length=1))
    if isinstance(base, Literals):
        return join(*(_literal_member(value, key) for value in base.values))
    return AnyValue()  # a number's or boolean's keys are its prototype's methods


def _object_member(base: ObjectType, key: str, null_prototype: bool) -> ValueType:
    value_type = base.declared.get(key)
    if value_type is not None:
        return value_type if key in base.required else join(value_type, UNDEFINED_TYPE)
    if not null_prototype and key in OBJECT_PROTOTYPE_KEYS:
        return AnyValue()
    if base.additional is None:
        return UNDEFINED_TYPE
    return join(base.additional, UNDEFINED_TYPE)


def _sequence_member(key: str | int, item: ValueType) -> ValueType:
    """A string's or an array's key: an index reads an item or undefined past the end; `length`
    a count; anything else its prototype's (a method, unknown here)."""
    if array_index(key) is not None:
        return join(item, UNDEFINED_TYPE)
    if key == "length":
        return _STRING_LENGTH
    return AnyValue()


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _literal_member(value: object, key: str | int) -> ValueType:
    if value is None:
        return NoValue()
    if isinstance(value, str):
        if key == "length":
            return Literals((_utf16_length(value),))
        index = array_index(key)
        if index is not None:
            # One UTF-16 code unit, as JavaScript indexes strings; past the end, undefined.
            return join(StringType(min_length=1, max_length=1), UNDEFINED_TYPE) if (
                index < _utf16_length(value)) else UNDEFINED_TYPE
    return AnyValue()


def admits(value_type: ValueType, value: object) -> bool:
    """Whether `value` (JSON data as Python holds it — dict, list, str, int, float, bool, None —
    or `UNDEFINED`) is a value of `value_type`. A string's `pattern` and `format` are not
    checked (their regular-expression dialects differ from Python's): such a string is
    admitted, never wrongly refused."""
    if isinstance(value_type, AnyValue):
        return True
    if isinstance(value_type, Union):
        return any(admits(option, value) for option in value_type.options)
    if isinstance(value_type, UndefinedType):
        return value is UNDEFINED
    if isinstance(value_type, NullType):
        return value is None
    if isinstance(value_type, BooleanType):
        return isinstance(value, bool)
    if isinstance(value_type, Literals):
        return (isinstance(value, str | int | float | bool) or value is None) and any(
            same_literal(member, value) for member in value_type.values)
    if isinstance(value_type, StringType):
        return isinstance(value, str) and _within(
            len(value), value_type.min_length, value_type.max_length)
    if isinstance(value_type, NumberType):
        return _admits_number(value_type, value)
    if isinstance(value_type, ArrayType):
        return isinstance(value, list) and _within(
            len(value), value_type.min_items, value_type.max_items) and all(
            admits(value_type.items, item) for item in value)
    if isinstance(value_type, ObjectType):
        return isinstance(value, dict) and _admits_object(value_type, value)
    return False  # NoValue


def _within(size: int, low: int | None, high: int | None) -> bool:
    return (low is None or size >= low) and (high is None or size <= high)


def _admits_number(value_type: NumberType, value: object) -> bool:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    if not math.isfinite(value):
        return not value_type.finite and not value_type.integer and all(
            bound is None for bound in (value_type.minimum, value_type.maximum,
                                        value_type.exclusive_minimum,
                                        value_type.exclusive_maximum, value_type.multiple_of))
    if value_type.integer and not float(value).is_integer():
        return False
    low, high = value_type.minimum, value_type.maximum
    if (low is not None and value < low) or (high is not None and value > high):
        return False
    low, high = value_type.exclusive_minimum, value_type.exclusive_maximum
    if (low is not None and value <= low) or (high is not None and value >= high):
        return False
    step = value_type.multiple_of
    # A float quotient's rounding is no reason to refuse: only a clear remainder does.
    return step is None or step <= 0 or abs(value / step - round(value / step)) < 1e-9


def _admits_object(value_type: ObjectType, value: Mapping[object, object]) -> bool:
    if not _within(len(value), value_type.min_properties, value_type.max_properties):
        return False
    if any(name not in value for name in value_type.required):
        return False
    declared = value_type.declared
    for key, item in value.items():
        if not isinstance(key, str):
            return False
        item_type = declared.get(key, value_type.additional)
        if item_type is None or not admits(item_type, item):
            return False
    return True
