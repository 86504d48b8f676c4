"""The values of number literals, and objects built key by key (object literals, `{...x}`
spreads, `Object.assign`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from analysis.schema.value_types import (
    AnyValue,
    Literals,
    NullType,
    ObjectType,
    UndefinedType,
    ValueType,
)
from analysis.types.algebra import join, options

# Within this, a float holding an integer is the same double as the integer.
_SAFE_INTEGER = 2**53
# Keys whose value JavaScript calls when it turns the object into a primitive or JSON: an object
# literal defining one may not behave as plain data.
CONVERSION_KEYS = frozenset({"toString", "valueOf", "toJSON", "__proto__"})


def number_value(text: str) -> int | float | None:
    """A number literal's value as JavaScript reads it (a double), None for a BigInt or a form
    not read here (a legacy octal)."""
    if text.isascii() and text.isdigit() and (text[0] != "0" or len(text) == 1):
        # the common literal, a plain decimal integer (its value is exact below 2**53)
        integer = int(text)
        if integer < _SAFE_INTEGER:
            return integer
    digits = text.replace("_", "")
    if digits.endswith("n"):
        return None
    try:
        if digits[:2].lower() in ("0x", "0o", "0b"):
            value: float = int(digits, 0)
        elif len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
            return None  # 017: legacy octal (or decimal 019) in sloppy code
        else:
            value = float(digits)
    except ValueError:
        return None
    as_float = float(value)
    if as_float.is_integer() and abs(as_float) < _SAFE_INTEGER:
        return int(as_float)
    return as_float


@dataclass
class ObjectShape:
    """An object being built key by key, in JavaScript's order (a redefined key keeps its
    place): each key's type and whether it is surely present."""

    properties: dict[str, tuple[ValueType, bool]] = field(default_factory=dict)
    additional: ValueType | None = None

    def define(self, key: str, value_type: ValueType) -> None:
        self.properties[key] = (value_type, True)

    def spread(self, source: ObjectType, surely: bool) -> None:
        """Copy `source`'s own keys (`{...source}`); `surely`: the source is there (else it may
        be null or undefined, which copies nothing)."""
        if source.additional is not None:
            # an extra key may overwrite any key defined so far
            self.properties = {key: (join(value_type, source.additional), present)
                               for key, (value_type, present) in self.properties.items()}
            self.additional = (source.additional if self.additional is None
                               else join(self.additional, source.additional))
        for key, value_type in source.properties:
            present = surely and key in source.required
            if present or key not in self.properties:
                self.properties[key] = (value_type, present)
            else:
                earlier, was_present = self.properties[key]
                self.properties[key] = (join(earlier, value_type), was_present)

    def spread_type(self, source: ValueType, *, surely: bool = True) -> bool:
        """`{...source}` for any type; False when it is not followed (the shape is unknown).
        `surely` False: the spread may not happen at all (an item of an array spread into
        `Object.assign`)."""
        found = list(options(source))
        objects = [o for o in found if isinstance(o, ObjectType)]
        nullish = [o for o in found if isinstance(o, NullType | UndefinedType)
                   or (isinstance(o, Literals) and o.values == (None,))]
        if len(objects) + len(nullish) != len(found):
            return False
        # one of several objects (or none) is copied: each one's keys are only maybe there
        certain = surely and len(objects) == 1 and not nullish
        for source_object in objects:
            self.spread(source_object, surely=certain)
        return True

    def build(self) -> ObjectType:
        return ObjectType(
            tuple((key, value_type) for key, (value_type, _) in self.properties.items()),
            frozenset(key for key, (value_type, present) in self.properties.items()
                      if present and not _may_be_undefined(value_type)),
            self.additional)


def _may_be_undefined(value_type: ValueType) -> bool:
    return any(isinstance(o, UndefinedType | AnyValue) for o in options(value_type))
