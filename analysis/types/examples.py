"""A value of a type: what a dry run synthesizes for an agent whose output it does not have (the
samples skeleton writes the same), so the synthesized output passes the engine's validation of
the agent's `output_schema` (ADR-0092 §4) the way a real answer must.

Contract: `example_of(value_type)` → a JSON value (`admits(value_type, it)` holds) chosen
plainly: an enum's first member, `false`, the smallest number the bounds allow, a string of the
shortest allowed length (a format's own example), every declared property of an object. Where
no value is known to fit (a `pattern`, unique items, a type no value has), it is the plainest
value of the shape anyway — a dry run notes nothing about it, and the engine would refuse the
same answer. Unknown → null.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

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
from analysis.types.membership import admits

# A value of each format of the engine's closed vocabulary (ADR-0083 §4; the subset's FORMATS).
FORMAT_EXAMPLES = {
    "email": "user@example.com",
    "uri": "https://example.com/",
    "uuid": "00000000-0000-0000-0000-000000000000",
    "date-time": "2026-01-01T00:00:00Z",
}
# Past this many items or characters an example says nothing more (and a bound of millions would
# fill a samples file).
MAX_REPEAT = 64
MAX_DEPTH = 32


def example_of(value_type: ValueType, depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        return None
    if isinstance(value_type, Literals):
        return value_type.values[0] if value_type.values else None
    if isinstance(value_type, Union):
        made = [example_of(option, depth + 1) for option in value_type.options
                if not isinstance(option, UndefinedType | NoValue)]
        fitting = [value for value in made if admits(value_type, value)]
        return (fitting or made or [None])[0]
    if isinstance(value_type, StringType):
        return _string(value_type)
    if isinstance(value_type, NumberType):
        return _number(value_type)
    if isinstance(value_type, BooleanType):
        return False
    if isinstance(value_type, ArrayType):
        count = min(value_type.min_items or 0, MAX_REPEAT)
        return [example_of(value_type.items, depth + 1) for _ in range(count)]
    if isinstance(value_type, ObjectType):
        return {name: example_of(property_type, depth + 1)
                for name, property_type in value_type.properties}
    assert isinstance(value_type, AnyValue | NoValue | NullType | UndefinedType)
    return None


def _string(value_type: StringType) -> str:
    if value_type.format in FORMAT_EXAMPLES:
        return FORMAT_EXAMPLES[value_type.format]
    return "x" * min(value_type.min_length or 0, MAX_REPEAT)


def _number(value_type: NumberType) -> int | float:
    """The value nearest 0 the bounds allow (a multiple of `multiple_of`, an integer for
    `integer`)."""
    step = value_type.multiple_of or (1 if value_type.integer else None)
    low, low_open = _bound(value_type.minimum, value_type.exclusive_minimum, max)
    high, high_open = _bound(value_type.maximum, value_type.exclusive_maximum, min)
    candidate: float = 0
    if low is not None and (candidate < low or (low_open and candidate == low)):
        candidate = _next(low, step, up=True, open_=low_open)
    elif high is not None and (candidate > high or (high_open and candidate == high)):
        candidate = _next(high, step, up=False, open_=high_open)
    if value_type.integer and float(candidate).is_integer():
        return int(candidate)
    return candidate


def _bound(inclusive: float | None, exclusive: float | None,
           tighter: Callable[[float, float], float]) -> tuple[float | None, bool]:
    """The tighter of an inclusive and an exclusive bound, and whether it is exclusive."""
    if exclusive is None:
        return inclusive, False
    if inclusive is None or tighter(inclusive, exclusive) == exclusive:
        return exclusive, True
    return inclusive, False


def _next(bound: float, step: float | None, *, up: bool, open_: bool) -> float:
    """The first allowed value from `bound` inwards: a multiple of `step` when there is one."""
    if step is None:
        return bound + (1 if up else -1) if open_ else bound
    multiple = (math.ceil(bound / step) if up else math.floor(bound / step)) * step
    if open_ and multiple == bound:
        multiple += step if up else -step
    return multiple
