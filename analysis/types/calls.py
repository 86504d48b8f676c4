"""The types of calls: a string's, number's or array's methods (callbacks bound to the items),
the namespace functions (`Math.max`, `Object.keys`, …) and the global ones (`Number(x)`)."""

from __future__ import annotations

from tree_sitter import Node

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
from analysis.types.algebra import is_nothing, is_string_type, join, options
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
from analysis.types.walker import Walker, children

_INDEX = NumberType(integer=True, minimum=0)
# Callbacks called with (item, index, array).
_ITEM_CALLBACKS = frozenset({"map", "flatMap"})


class CallTyping:
    def __init__(self, walk: Walker) -> None:
        self.walk = walk

    def call(self, node: Node) -> tuple[ValueType, bool]:
        """A call link of a chain: its type and whether an earlier `?.` may have cut it."""
        callee = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if (callee is None or arguments is None or arguments.type != "arguments"
                or node.child_by_field_name("optional_chain") is not None):
            return AnyValue(), False
        argument_nodes = children(arguments)
        if callee.type == "identifier":
            name = self.walk.name(callee)
            if name not in GLOBAL_FUNCTIONS or not self.walk.is_global(callee, name):
                return AnyValue(), False
            return self._after_arguments(argument_nodes, GLOBAL_FUNCTIONS[name]), False
        if callee.type != "member_expression":
            return AnyValue(), False
        obj, prop = callee.child_by_field_name("object"), callee.child_by_field_name("property")
        if obj is None or prop is None or prop.type != "property_identifier":
            return AnyValue(), False
        method = self.walk.name(prop)
        if method is None:
            return AnyValue(), False
        if obj.type == "identifier" and (namespace := self.walk.name(obj)) in NAMESPACES and (
                namespace is not None and self.walk.is_global(obj, namespace)):
            return self._namespace_call(namespace, method, argument_nodes), False
        receiver, cut = self.walk.base(obj, callee)
        if is_nothing(receiver):
            return NoValue(), cut
        return join(*(self._method(option, method, argument_nodes)
                      for option in options(receiver))), cut

    def _arguments(self, nodes: list[Node]) -> list[ValueType] | None:
        """The arguments' types (None when one is a spread); an argument that always throws
        makes the call throw (`NoValue` in the list)."""
        types: list[ValueType] = []
        for node in nodes:
            if node.type == "spread_element":
                return None
            types.append(AnyValue() if node.type == "arrow_function" else self.walk.type_of(node))
        return types

    def _after_arguments(self, nodes: list[Node], result: ValueType) -> ValueType:
        types = self._arguments(nodes)
        if types is not None and any(is_nothing(t) for t in types):
            return NoValue()
        return result

    def _namespace_call(self, namespace: str, name: str, nodes: list[Node]) -> ValueType:
        if (namespace, name) in NAMESPACE_FUNCTIONS:
            return self._after_arguments(nodes, NAMESPACE_FUNCTIONS[(namespace, name)])
        if namespace != "Object":
            return AnyValue()
        types = self._arguments(nodes)
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
        if name == "assign" and types:
            shape = ObjectShape()
            for source in types:
                if not shape.spread_type(source):
                    return AnyValue()
            return shape.build()
        if name == "freeze" and types:
            return types[0]
        return AnyValue()

    def _method(self, receiver: ValueType, name: str, nodes: list[Node]) -> ValueType:
        if isinstance(receiver, NullType | UndefinedType):
            return NoValue()
        if isinstance(receiver, ArrayType):
            return self._array_method(receiver, name, nodes)
        table = _method_table(receiver)
        if table is None or name not in table:
            return AnyValue()
        # a callback argument (replace's) is called, but its value only becomes text
        return self._after_arguments(nodes, table[name])

    def _array_method(self, receiver: ArrayType, name: str, nodes: list[Node]) -> ValueType:
        items = receiver.items
        item_parameters = [items, _INDEX, receiver]
        if name in ARRAY_FIXED_METHODS:
            return self._after_arguments(nodes, ARRAY_FIXED_METHODS[name])
        if name in ARRAY_SAME_ITEMS:
            return self._after_arguments(nodes, ArrayType(items))
        if name in ("find", "findLast", "at"):
            return self._after_arguments(nodes, join(items, UndefinedType()))
        if name in _ITEM_CALLBACKS:
            body = self.walk.callback(nodes[0], item_parameters) if nodes else None
            if body is None:
                return ArrayType(AnyValue())
            if name == "map":
                return ArrayType(body, receiver.min_items, receiver.max_items)
            return ArrayType(_flattened(body))
        if name == "reduce" and nodes:
            body = self.walk.callback(nodes[0], [AnyValue(), items, _INDEX, receiver])
            if body is None:
                return AnyValue()
            start = self._arguments(nodes[1:2])
            if start is None:
                return AnyValue()
            return join(body, *(start or [items]))
        if name == "concat":
            types = self._arguments(nodes)
            if types is None:
                return AnyValue()
            return ArrayType(join(items, *(_flattened(t) for t in types)))
        if name == "flat" and len(nodes) == 0:
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

