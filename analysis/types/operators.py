"""The types of unary and binary operators' results (ECMA-262 §13.5–13.15).

A number operator on an unknown operand is unknown: the operand may be a BigInt (a literal or
`BigInt()` — unknown here), which makes the result one too. Every other operand kind a type
names makes `-`, `*`, `/`, `%`, `**` a number (NaN included) and a bitwise operator an
integer.
"""

from __future__ import annotations

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
    ValueType,
)
from analysis.types.algebra import (
    falsy_part,
    has_unknown,
    is_nothing,
    join,
    non_nullish_part,
    nullish_part,
    options,
    truthy_part,
)
from analysis.types.builtins import BOOLEAN, COMPUTED_NUMBER, STRING
from analysis.types.program import Binary, Expr, Unary
from analysis.types.walker import Walker

_COMPARISONS = frozenset({"==", "!=", "===", "!==", "<", ">", "<=", ">=", "in", "instanceof"})
_ARITHMETIC = frozenset({"-", "*", "/", "%", "**"})
_BITWISE = frozenset({"&", "|", "^", "<<", ">>"})
_TYPEOF_NAMES = ("string", "number", "bigint", "boolean", "symbol", "undefined", "object",
                 "function")


def binary_type(walk: Walker, node: Binary) -> ValueType:
    operator, right_node = node.operator, node.right
    left = walk.type_of(node.left)
    if is_nothing(left):
        return NoValue()
    if operator in ("||", "&&", "??"):
        return _short_circuit(walk, operator, left, right_node)
    right = walk.type_of(right_node)
    if is_nothing(right):
        return NoValue()
    if operator in _COMPARISONS:
        return BOOLEAN
    if operator == "+":
        return _plus(left, right)
    if has_unknown(left) or has_unknown(right):
        return AnyValue()
    if operator in _ARITHMETIC:
        return COMPUTED_NUMBER
    if operator in _BITWISE:
        return NumberType(integer=True)
    if operator == ">>>":
        return NumberType(integer=True, minimum=0)
    return AnyValue()


def _short_circuit(walk: Walker, operator: str, left: ValueType, right_node: Expr) -> ValueType:
    """`a || b`, `a && b`, `a ?? b`: the left value when it decides, else the right one."""
    if operator == "||":
        kept, passed = truthy_part(left), falsy_part(left)
    elif operator == "&&":
        kept, passed = falsy_part(left), truthy_part(left)
    else:
        kept, passed = non_nullish_part(left), nullish_part(left)
    if is_nothing(passed):
        return kept
    return join(kept, walk.type_of(right_node))


def _plus(left: ValueType, right: ValueType) -> ValueType:
    """`+`: a string when either side turns into one (a string, an array, an object: JSON
    data's `toString`), else a number."""
    left_kinds, right_kinds = _plus_kinds(left), _plus_kinds(right)
    if left_kinds is None or right_kinds is None:
        return AnyValue()
    parts: list[ValueType] = []
    if "string" in left_kinds or "string" in right_kinds:
        parts.append(STRING)
    if "number" in left_kinds and "number" in right_kinds:
        parts.append(COMPUTED_NUMBER)
    return join(*parts)


def _plus_kinds(value_type: ValueType) -> set[str] | None:
    kinds: set[str] = set()
    for option in options(value_type):
        if isinstance(option, StringType | ArrayType | ObjectType):
            kinds.add("string")
        elif isinstance(option, NumberType | BooleanType | NullType | UndefinedType):
            kinds.add("number")
        elif isinstance(option, Literals):
            kinds.update("string" if isinstance(v, str) else "number" for v in option.values)
        else:
            return None
    return kinds


def unary_type(walk: Walker, node: Unary) -> ValueType:
    operator = node.operator
    argument = walk.type_of(node.argument)
    if is_nothing(argument):
        return NoValue()
    if operator == "!":
        if is_nothing(falsy_part(argument)):
            return Literals((False,))
        if is_nothing(truthy_part(argument)):
            return Literals((True,))
        return BOOLEAN
    if operator == "typeof":
        return _typeof(argument)
    if operator == "void":
        return UndefinedType()
    if operator == "+":
        return COMPUTED_NUMBER  # a BigInt throws
    if has_unknown(argument):
        return AnyValue()
    if operator == "-":
        return COMPUTED_NUMBER
    if operator == "~":
        return NumberType(integer=True)
    return AnyValue()


def _typeof(value_type: ValueType) -> ValueType:
    names: list[str] = []
    for option in options(value_type):
        if isinstance(option, AnyValue):
            return Literals(_TYPEOF_NAMES)
        if isinstance(option, Literals):
            names.extend(_literal_typeof(v) for v in option.values)
        elif isinstance(option, StringType):
            names.append("string")
        elif isinstance(option, NumberType):
            names.append("number")
        elif isinstance(option, BooleanType):
            names.append("boolean")
        elif isinstance(option, UndefinedType):
            names.append("undefined")
        else:
            names.append("object")  # null, arrays, objects
    return join(*(Literals((name,)) for name in names))


def _literal_typeof(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    return "object" if value is None else "number"
