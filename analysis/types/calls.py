"""The types of calls: a string's, number's or array's methods (callbacks bound to the items),
the namespace functions (`Math.max`, `Object.keys`, …) and the global ones (`Number(x)`)."""

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
from analysis.types.algebra import UNDEFINED_TYPE, is_nothing, is_string_type, join, options
from analysis.types.builtins import (
    ARRAY_FIXED_METHODS,
    ARRAY_SAME_ITEMS,
    BOOLEAN_METHODS,
    GLOBAL_FUNCTIONS,
    NAMESPACE_FUNCTIONS,
    NAMESPACES,
    NUMBER_METHODS,
    STRING,
    STRING_METHODS,
)
from analysis.types.literals import ObjectShape
from analysis.types.program import Arrow, Expr, Spread
from analysis.types.program import Call as CallExpr
from analysis.types.walker import Walker

_INDEX = NumberType(integer=True, minimum=0)
Arguments = tuple[Expr | Arrow | Spread, ...]


def call_type(walk: Walker, call: CallExpr) -> tuple[ValueType, bool]:
    """A call link of a chain: its type and whether an earlier `?.` may have cut it short."""
    if call.receiver is None:
        if call.name not in GLOBAL_FUNCTIONS or not walk.is_global(call.name):
            return AnyValue(), False
        return _after_arguments(walk, call.arguments, GLOBAL_FUNCTIONS[call.name]), False
    namespace = call.namespace
    if namespace is not None and namespace in NAMESPACES and walk.is_global(namespace):
        return _namespace_call(walk, namespace, call.name, call.arguments), False
    receiver, cut = walk.base(call)
    if is_nothing(receiver):
        return NoValue(), cut
    return join(*(_method(walk, option, call.name, call.arguments)
                  for option in options(receiver))), cut


def _arguments(walk: Walker, nodes: Arguments) -> list[ValueType] | None:
    """The arguments' types (None when one is a spread); an argument that always throws makes
    the call throw (`NoValue` in the list)."""
    types: list[ValueType] = []
    for node in nodes:
        if isinstance(node, Spread):
            return None
        types.append(AnyValue() if isinstance(node, Arrow) else walk.type_of(node))
    return types


def _after_arguments(walk: Walker, nodes: Arguments, result: ValueType) -> ValueType:
    types = _arguments(walk, nodes)
    if types is not None and any(is_nothing(t) for t in types):
        return NoValue()
    return result


def _namespace_call(walk: Walker, namespace: str, name: str, nodes: Arguments) -> ValueType:
    if (namespace, name) in NAMESPACE_FUNCTIONS:
        return _after_arguments(walk, nodes, NAMESPACE_FUNCTIONS[(namespace, name)])
    if namespace != "Object":
        return AnyValue()
    if name == "assign" and nodes:
        return _assign(walk, nodes)
    types = _arguments(walk, nodes)
    if types is None:
        return AnyValue()
    if any(is_nothing(t) for t in types):
        return NoValue()
    if name in ("values", "entries") and types:
        values = _own_values(types[0])
        if values is None:
            return AnyValue()
        if name == "values":
            return ArrayType(values)
        return ArrayType(ArrayType(join(STRING, values), min_items=2, max_items=2))
    if name == "freeze" and types:
        return types[0]
    return AnyValue()


def _assign(walk: Walker, nodes: Arguments) -> ValueType:
    """`Object.assign(target, ...sources)`: the target with each source's keys copied in order;
    an array spread among the sources copies each of its items, how many there are unknown
    (`Object.assign({}, ...branches)`, a custom merge's usual form)."""
    shape = ObjectShape()
    for node in nodes:
        if isinstance(node, Arrow):
            return AnyValue()
        spread = isinstance(node, Spread)
        source = walk.type_of(node.value if isinstance(node, Spread) else node)
        if is_nothing(source):
            return NoValue()
        if spread:
            if not isinstance(source, ArrayType):
                return AnyValue()
            source = source.items
        if _may_set_prototype(source) or not shape.spread_type(source, surely=not spread):
            return AnyValue()
    return shape.build()


def _may_set_prototype(source: ValueType) -> bool:
    """Whether copying `source` by assignment may meet an own `__proto__` key holding an object
    or null, which `Object.assign` hands to the prototype setter instead of copying (a
    `{...source}` spread copies it as a key)."""
    for option in options(source):
        if isinstance(option, ObjectType):
            value = option.declared.get("__proto__", option.additional)
            if value is not None and any(
                    isinstance(v, ObjectType | ArrayType | AnyValue | NullType)
                    or (isinstance(v, Literals) and None in v.values) for v in options(value)):
                return True
    return False


def _method(walk: Walker, receiver: ValueType, name: str, nodes: Arguments) -> ValueType:
    if isinstance(receiver, NullType | UndefinedType):
        return NoValue()
    if isinstance(receiver, ArrayType):
        return _array_method(walk, receiver, name, nodes)
    table = _method_table(receiver)
    if table is None or name not in table:
        return AnyValue()
    # a callback argument (replace's) is called, but what it returns only becomes text
    return _after_arguments(walk, nodes, table[name])


def _array_method(walk: Walker, receiver: ArrayType, name: str, nodes: Arguments) -> ValueType:
    items = receiver.items
    if name in ARRAY_FIXED_METHODS:
        return _after_arguments(walk, nodes, ARRAY_FIXED_METHODS[name])
    if name in ARRAY_SAME_ITEMS:
        return _after_arguments(walk, nodes, ArrayType(items))
    if name in ("find", "findLast", "at"):
        return _after_arguments(walk, nodes, join(items, UNDEFINED_TYPE))
    if name in ("map", "flatMap"):
        body = walk.callback(nodes[0], [items, _INDEX, receiver]) if nodes else None
        if body is None:
            return ArrayType(AnyValue())
        if name == "map":
            return ArrayType(body, receiver.min_items, receiver.max_items)
        return ArrayType(_flattened(body))
    if name == "reduce" and nodes:
        body = walk.callback(nodes[0], [AnyValue(), items, _INDEX, receiver])
        start = _arguments(walk, nodes[1:2])
        if body is None or start is None:
            return AnyValue()
        # without a start, a one-item array's item is the result (the callback is not called)
        return join(body, *(start or [items]))
    if name == "concat":
        types = _arguments(walk, nodes)
        if types is None:
            return AnyValue()
        return ArrayType(join(items, *(_flattened(t) for t in types)))
    if name == "flat" and not nodes:
        return ArrayType(_flattened(items))
    return AnyValue()


def _method_table(receiver: ValueType) -> dict[str, ValueType] | None:
    if is_string_type(receiver):
        return STRING_METHODS
    if isinstance(receiver, NumberType) or (
            isinstance(receiver, Literals) and all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in receiver.values)):
        return NUMBER_METHODS
    if isinstance(receiver, BooleanType) or (
            isinstance(receiver, Literals) and all(isinstance(v, bool) for v in receiver.values)):
        return BOOLEAN_METHODS
    return None


def _flattened(value_type: ValueType) -> ValueType:
    """What one level of `flat` / `concat` / `flatMap` makes of a value: an array's items, any
    other value itself."""
    return join(*(option.items if isinstance(option, ArrayType) else option
                  for option in options(value_type)))


def _own_values(value_type: ValueType) -> ValueType | None:
    """The type of `Object.values(x)`'s items (None: not followed)."""
    parts: list[ValueType] = []
    for option in options(value_type):
        if isinstance(option, ObjectType):
            parts.extend(t for _, t in option.properties)
            if option.additional is not None:
                parts.append(option.additional)
        elif isinstance(option, ArrayType):
            parts.append(option.items)
        elif isinstance(option, StringType):
            parts.append(StringType(min_length=1, max_length=1))
        else:
            return None
    return join(*parts)

