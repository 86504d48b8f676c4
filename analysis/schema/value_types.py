"""What a value may be, as an `output_schema` in the engine's strict subset says it: a small,
immutable type language, built by `analysis.schema.output_schema.compile_output_schema`.

Contract: a `ValueType` describes exactly the values the engine's compiled validator accepts
(`packages/shared/src/json-schema-compiler.ts`, strict mode), with one deliberate coarsening:
`Literals` lists an `enum`/`const`'s members of the kinds the node's `type` admits, without the
other constraints (`minLength`, …) applied to them. The forms:
- `AnyValue()` — anything (`true`, `{}`, a node of annotations only); `NoValue()` — nothing
  (`false`, or an `enum` and a `type` with no member in common);
- `StringType`, `NumberType` (`integer=True` for `type: integer`), `BooleanType`, `NullType`,
  each with the bounds the schema states (None when it states none; `NumberType.finite=False`,
  never compiled, for a computed number that may be NaN or ±Infinity); `UndefinedType` —
  JavaScript's `undefined`, for the types of reads (a key an object may lack), never compiled
  from a schema;
- `ArrayType(items, …)`; `ObjectType(properties, required, additional)`: `properties` in authored
  order (a `required` name the schema does not declare is there too, typed as the extra keys
  are), `additional` the type of keys not in `properties`, None when they are forbidden
  (`additionalProperties: false`);
- `Literals(values)` — one of these JSON scalars; `Union(options)` — any one of them (`type:
  [a, b]`, `nullable: true`, a typeless node's constraints per kind).
`union_of(options)` and `restricted(literals, shape)` build the last two as the compiler needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

JsonScalar = str | int | float | bool | None


@dataclass(frozen=True)
class AnyValue:
    pass


@dataclass(frozen=True)
class NoValue:
    pass


@dataclass(frozen=True)
class StringType:
    min_length: int | None = None  # in code points, as JSON Schema counts characters
    max_length: int | None = None
    pattern: str | None = None  # an ECMA-262 regular expression
    format: str | None = None  # one of the subset's formats (email, uuid, …)


@dataclass(frozen=True)
class NumberType:
    integer: bool = False
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None
    exclusive_maximum: float | None = None
    multiple_of: float | None = None
    # False for a number JavaScript computed (arithmetic, `Math.*`), which may be NaN or
    # ±Infinity; a JSON number, as every schema's is, is always finite. (Keyword-only: the
    # compiler passes the bounds by position.)
    finite: bool = field(default=True, kw_only=True)


@dataclass(frozen=True)
class BooleanType:
    pass


@dataclass(frozen=True)
class NullType:
    pass


@dataclass(frozen=True)
class UndefinedType:
    """JavaScript's `undefined`, which no JSON value is: what reading a key an object may lack
    gives (a property the schema does not require), never a schema's own type."""


@dataclass(frozen=True)
class ArrayType:
    items: ValueType = AnyValue()
    min_items: int | None = None
    max_items: int | None = None
    unique: bool = False


@dataclass(frozen=True)
class ObjectType:
    properties: tuple[tuple[str, ValueType], ...] = ()
    required: frozenset[str] = frozenset()
    additional: ValueType | None = AnyValue()
    min_properties: int | None = None
    max_properties: int | None = None
    # Each declared property's `description`, for completion and hover; not part of the shape.
    descriptions: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @cached_property
    def declared(self) -> dict[str, ValueType]:
        """`properties` by name, built once per object (not part of the shape): a workflow's
        `run.outputs` type has a property per node, read by every expression."""
        return dict(self.properties)

    def property(self, name: str) -> ValueType | None:
        """The type of key `name`'s value: its declared type, else the extra keys' (None when
        the key cannot be present)."""
        for declared, value_type in self.properties:
            if declared == name:
                return value_type
        return self.additional


@dataclass(frozen=True)
class Literals:
    values: tuple[JsonScalar, ...]


@dataclass(frozen=True)
class Union:
    options: tuple[ValueType, ...]


ValueType = (AnyValue | NoValue | StringType | NumberType | BooleanType | NullType
             | UndefinedType | ArrayType | ObjectType | Literals | Union)


def union_of(options: list[ValueType]) -> ValueType:
    return options[0] if len(options) == 1 else Union(tuple(options))


def _admits(shape: ValueType, value: JsonScalar) -> bool:
    """Whether a value of `value`'s kind is one `shape` admits (its other constraints aside)."""
    if isinstance(shape, Union):
        return any(_admits(option, value) for option in shape.options)
    if isinstance(shape, AnyValue):
        return True
    if isinstance(shape, StringType):
        return isinstance(value, str)
    if isinstance(shape, NumberType):
        return isinstance(value, int | float) and not isinstance(value, bool) and (
            not shape.integer or float(value).is_integer())
    if isinstance(shape, BooleanType):
        return isinstance(value, bool)
    if isinstance(shape, NullType):
        return value is None
    return False  # a literal is never an array or an object


def restricted(literals: Literals, shape: ValueType) -> ValueType:
    """The intersection of a value constraint and a shape (JSON Schema's: both must hold)."""
    kept = tuple(value for value in literals.values if _admits(shape, value))
    return Literals(kept) if kept else NoValue()
