"""Joining types and splitting them by what JavaScript asks of a value: truthy or falsy,
nullish or not, a string or not. Every split over-approximates: a part may hold values the
value cannot be, never miss one it can (a missed value would make an inferred type unsound).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from analysis.schema.value_types import (
    AnyValue,
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

NOTHING = NoValue()
UNDEFINED_TYPE = UndefinedType()
# Past this many options a union says little and costs every later step: it becomes unknown.
MAX_OPTIONS = 24


def options(value_type: ValueType) -> tuple[ValueType, ...]:
    """The members of a union (a type that is no union is its own one member)."""
    # a tuple, not a generator: most types are no union, and this runs for each type inference
    # looks at
    kind = type(value_type)
    if kind is Union:
        return tuple(option for member in value_type.options  # type: ignore[union-attr]
                     for option in options(member))
    return () if kind is NoValue else (value_type,)


def same_literal(left: JsonScalar, right: JsonScalar) -> bool:
    """JavaScript's `===` on two literals, except that NaN equals NaN (one literal, not two):
    True == 1 in Python, never in JavaScript; 1 == 1.0 in both."""
    if isinstance(left, bool | str) or left is None:
        return type(left) is type(right) and left == right
    if isinstance(right, bool | str) or right is None:
        return False
    return left == right or (left != left and right != right)


def _literal_values(values: Iterable[JsonScalar]) -> tuple[JsonScalar, ...]:
    kept: list[JsonScalar] = []
    for value in values:
        if not any(same_literal(value, seen) for seen in kept):
            kept.append(value)
    return tuple(kept)


def join(*types: ValueType) -> ValueType:
    """The union of `types`, flattened: unknown absorbs everything, no value vanishes, literals
    gather into one `Literals`, equal members appear once."""
    if len(types) == 1 and not isinstance(types[0], Union):
        return types[0]  # (most joins: a read of one type; nothing to normalise)
    members: list[ValueType] = []
    literal_values: list[JsonScalar] = []
    for value_type in types:
        for option in options(value_type):
            kind = type(option)
            if kind is AnyValue:
                return option
            if kind is Literals:
                literal_values.extend(option.values)  # type: ignore[union-attr]
            # compared with members of its own class only: a cross-class == tries both sides
            elif not any(type(member) is kind and member == option for member in members):
                members.append(option)
    if literal_values:
        members.append(Literals(_literal_values(literal_values)))
    if not members:
        return NOTHING
    if len(members) > MAX_OPTIONS:
        return AnyValue()
    return members[0] if len(members) == 1 else Union(tuple(members))


def is_falsy_literal(value: JsonScalar) -> bool:
    # NaN is falsy too (it is never equal to itself).
    return value is None or value is False or value == "" or (
        isinstance(value, int | float) and not isinstance(value, bool)
        and (value == 0 or value != value))


def truthy_part(value_type: ValueType) -> ValueType:
    """The values of `value_type` JavaScript takes as true."""
    parts: list[ValueType] = []
    for option in options(value_type):
        if isinstance(option, Literals):
            parts.append(_literals([v for v in option.values if not is_falsy_literal(v)]))
        elif isinstance(option, BooleanType):
            parts.append(Literals((True,)))
        elif not isinstance(option, NullType | UndefinedType):
            # a non-empty string / non-zero number is still of its type; arrays and objects
            # are always truthy
            parts.append(option)
    return join(*parts)


def falsy_part(value_type: ValueType) -> ValueType:
    """The values of `value_type` JavaScript takes as false."""
    parts: list[ValueType] = []
    for option in options(value_type):
        if isinstance(option, Literals):
            parts.append(_literals([v for v in option.values if is_falsy_literal(v)]))
        elif isinstance(option, BooleanType):
            parts.append(Literals((False,)))
        elif isinstance(option, StringType):
            if not option.min_length:
                parts.append(Literals(("",)))
        elif isinstance(option, NumberType | NullType | UndefinedType | AnyValue):
            parts.append(option)  # 0, -0 and NaN are numbers: the type itself stays
    return join(*parts)


def nullish_part(value_type: ValueType) -> ValueType:
    """The `null` and `undefined` among `value_type`'s values."""
    parts: list[ValueType] = []
    for option in options(value_type):
        if isinstance(option, Literals):
            if None in option.values:
                parts.append(NullType())
        elif isinstance(option, NullType | UndefinedType | AnyValue):
            parts.append(option)
    return join(*parts)


def non_nullish_part(value_type: ValueType) -> ValueType:
    parts: list[ValueType] = []
    for option in options(value_type):
        if isinstance(option, Literals):
            parts.append(_literals([v for v in option.values if v is not None]))
        elif not isinstance(option, NullType | UndefinedType):
            parts.append(option)
    return join(*parts)


def _literals(values: list[JsonScalar]) -> ValueType:
    return Literals(tuple(values)) if values else NoValue()


def is_nothing(value_type: ValueType) -> bool:
    """Whether no value has this type (evaluating to it always throws)."""
    if isinstance(value_type, Union):
        return all(is_nothing(option) for option in value_type.options)
    return isinstance(value_type, NoValue) or (
        isinstance(value_type, Literals) and not value_type.values)


def has_unknown(value_type: ValueType) -> bool:
    return isinstance(value_type, AnyValue) or (
        isinstance(value_type, Union) and any(has_unknown(o) for o in value_type.options))


def is_string_type(value_type: ValueType) -> bool:
    """Whether every value is a string."""
    found = False
    for option in options(value_type):
        if isinstance(option, Literals):
            if not all(isinstance(v, str) for v in option.values):
                return False
        elif not isinstance(option, StringType):
            return False
        found = True
    return found


def merged_objects(outputs: Sequence[ValueType]) -> ObjectType | None:
    """`Object.assign` of branch outputs in order, each an object (fan-in.ts `mergeObjects`):
    a key any branch may give, none certain (a branch may not complete); None unless every
    branch is known to be an object."""
    if not outputs or not all(isinstance(output, ObjectType) for output in outputs):
        return None
    names: dict[str, list[ValueType]] = {}
    extra: list[ValueType] = []
    descriptions: dict[str, str] = {}
    for option in outputs:
        assert isinstance(option, ObjectType)
        for name, value_type in option.properties:
            names.setdefault(name, []).append(value_type)
        descriptions.update(option.descriptions)
        if option.additional is not None:
            extra.append(option.additional)
    properties = tuple((name, join(*types, *extra)) for name, types in names.items())
    additional = join(*extra) if extra else None
    return ObjectType(properties, frozenset(), additional,
                      descriptions=tuple(descriptions.items()))
