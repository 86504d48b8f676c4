"""The type of an expression's value, from the types of the scope it reads.

Contract: `expression_type(parsed, roots)` is a type that holds every value the sandbox can
return for the expression (`parsed` as `analysis.document.expressions.parsing` wraps it, the
way the engine evaluates it) when `inputs`, `ctx`, `run` and `branches` hold values of the types
`roots` gives — or `AnyValue()`, unknown, for whatever is not understood: a root not given, any
other free name, a block body, a function, an expression that may rewrite a built-in
(`analysis.types.purity`). `NoValue()` means the evaluation always throws. The type is of the
JavaScript value before the result is handed on as JSON; `returned_type` gives what the engine
hands on (expression-sandbox-spec.md, "Result contract").

`member_type` and `admits` live in `analysis.types.membership`; this module re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping

from tree_sitter import Node

from analysis.document.expressions.js_text import decode_identifier, decode_string_body
from analysis.document.expressions.parsing import ParsedExpression
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
    is_nothing,
    is_string_type,
    join,
    non_nullish_part,
    nullish_part,
    options,
    truthy_part,
)
from analysis.types.builtins import GLOBAL_VALUES, MATH_CONSTANTS
from analysis.types.calls import CallTyping
from analysis.types.literals import number_value, object_literal_type
from analysis.types.membership import UNDEFINED, admits, member_type
from analysis.types.operators import binary_type, unary_type
from analysis.types.purity import may_rewrite_builtins
from analysis.types.walker import children

__all__ = ["UNDEFINED", "admits", "expression_type", "member_type", "returned_type"]

# Deeper than this, the rest of an expression is unknown (the walk recurses).
MAX_DEPTH = 120
_CHAINS = frozenset({"member_expression", "subscript_expression", "call_expression"})
_SCOPE_RECORDS = frozenset({"inputs", "ctx", "run"})


def expression_type(parsed: ParsedExpression, roots: Mapping[str, ValueType]) -> ValueType:
    """The type of the expression's value given its roots' types (see the module docstring)."""
    if parsed.broken or may_rewrite_builtins(parsed):
        return AnyValue()
    wrapper = parsed.root.named_children[0].named_children[0]
    return Inference(parsed, roots).type_of(wrapper)


def returned_type(value_type: ValueType) -> ValueType:
    """The type of a transform's or merge_fn's result as the engine hands it on: a top-level
    `undefined` fails the node, nested values go through JSON (`undefined` properties drop,
    `undefined` items and a nested NaN or ±Infinity become null); a top-level number keeps its
    value (expression-sandbox-spec.md, "Result contract", "Lossy JSON coercion")."""
    parts = []
    for option in options(value_type):
        if not isinstance(option, UndefinedType):
            parts.append(_json_value(option, top=True))
    return join(*parts)


def _json_value(value_type: ValueType, *, top: bool = False) -> ValueType:
    if isinstance(value_type, ArrayType):
        return ArrayType(_json_item(value_type.items), value_type.min_items,
                         value_type.max_items, value_type.unique)
    if isinstance(value_type, ObjectType):
        properties = tuple((name, _json_property(t)) for name, t in value_type.properties)
        additional = value_type.additional
        return ObjectType(
            properties,
            frozenset(n for n in value_type.required
                      if not _may_be(dict(value_type.properties).get(n), UndefinedType)),
            None if additional is None else _json_property(additional),
            value_type.min_properties, value_type.max_properties, value_type.descriptions)
    if isinstance(value_type, NumberType) and not value_type.finite and not top:
        return join(NumberType(integer=value_type.integer), NullType())
    if isinstance(value_type, Literals) and not top:
        return Literals(tuple(None if isinstance(v, float) and not _finite(v) else v
                              for v in value_type.values))
    return value_type


def _finite(value: float) -> bool:
    return value == value and value not in (float("inf"), float("-inf"))


def _may_be(value_type: ValueType | None, kind: type) -> bool:
    return value_type is not None and any(isinstance(o, kind | AnyValue)
                                          for o in options(value_type))


def _json_item(value_type: ValueType) -> ValueType:
    # an undefined item (and a function) becomes null
    return join(*(NullType() if isinstance(o, UndefinedType) else _json_value(o)
                  for o in options(value_type)))


def _json_property(value_type: ValueType) -> ValueType:
    return join(*(_json_value(o) for o in options(value_type) if not isinstance(o, UndefinedType)))


class Inference:
    """One expression's walk: `type_of(node)` for each node, locals bound by arrow parameters."""

    def __init__(self, parsed: ParsedExpression, roots: Mapping[str, ValueType]) -> None:
        self.parsed = parsed
        self.roots = roots
        self.locals: list[dict[str, ValueType]] = []
        self.depth = 0
        self.calls = CallTyping(self)

    def name(self, node: Node) -> str | None:
        return decode_identifier(self.parsed.text(node))

    def source_text(self, node: Node) -> str:
        return self.parsed.text(node)

    def is_local(self, name: str) -> bool:
        return any(name in frame for frame in self.locals)

    def is_global(self, node: Node, name: str) -> bool:
        """Whether `node` is the free identifier `name` (neither a root nor a local)."""
        return (node.type == "identifier" and self.name(node) == name
                and name not in self.roots and not self.is_local(name))

    def type_of(self, node: Node) -> ValueType:
        if self.depth > MAX_DEPTH:
            return AnyValue()
        self.depth += 1
        try:
            return self._type_of(node)
        finally:
            self.depth -= 1

    def _type_of(self, node: Node) -> ValueType:
        kind = node.type
        if kind == "parenthesized_expression":
            inner = children(node)
            return self.type_of(inner[0]) if len(inner) == 1 else AnyValue()
        if kind in _CHAINS:
            value_type, short_circuited = self.chain(node)
            return join(value_type, UndefinedType()) if short_circuited else value_type
        if kind in ("identifier", "shorthand_property_identifier"):
            return self._identifier(node)
        if kind == "number":
            value = number_value(self.parsed.text(node))
            return AnyValue() if value is None else Literals((value,))
        if kind == "string":
            text = decode_string_body(self.parsed.text(node)[1:-1])
            return StringType() if text is None else Literals((text,))
        if kind == "template_string":
            return self._template(node)
        if kind == "true":
            return Literals((True,))
        if kind == "false":
            return Literals((False,))
        if kind == "null":
            return NullType()
        if kind == "undefined":
            return self._identifier(node)
        if kind == "ternary_expression":
            return self._ternary(node)
        if kind == "binary_expression":
            return binary_type(self, node)
        if kind == "unary_expression":
            return unary_type(self, node)
        if kind == "sequence_expression":
            parts = [self.type_of(part) for part in children(node)]
            return NoValue() if any(is_nothing(p) for p in parts) else parts[-1]
        if kind == "array":
            return self._array(node)
        if kind == "object":
            return object_literal_type(self, node)
        return AnyValue()

    def _identifier(self, node: Node) -> ValueType:
        name = self.name(node)
        if name is None:
            return AnyValue()
        for frame in reversed(self.locals):
            if name in frame:
                return frame[name]
        if name in self.roots:
            return self.roots[name]
        return GLOBAL_VALUES.get(name, AnyValue())

    def chain(self, node: Node) -> tuple[ValueType, bool]:
        """The type of a member, index or call link, and whether an optional link before it
        (`?.`) may have cut the chain short (its value then is `undefined`)."""
        if node.type == "call_expression":
            return self.calls.call(node)
        obj = node.child_by_field_name("object")
        if obj is None:
            return AnyValue(), False
        base, cut = self.base(obj, node)
        if is_nothing(base):
            return NoValue(), cut
        key: str | int | type[NoValue] | None = None
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            if prop is not None and prop.type == "property_identifier":
                key = self.name(prop)
        else:
            key = self._index_key(node.child_by_field_name("index"))
            if key is NoValue:
                return NoValue(), cut
        if not isinstance(key, str | int):
            return AnyValue(), cut
        if key in MATH_CONSTANTS and self.is_global(obj, "Math"):
            return NumberType(), cut
        return member_type(base, key, null_prototype=self._is_scope_record(obj)), cut

    def base(self, obj: Node, link: Node) -> tuple[ValueType, bool]:
        """The type of the object `link` reads from, without what `link`'s own `?.` cuts."""
        if obj.type in _CHAINS:
            base, cut = self.chain(obj)
        else:
            base, cut = self.type_of(obj), False
        if link.child_by_field_name("optional_chain") is not None:
            if not is_nothing(nullish_part(base)):
                cut = True
            base = non_nullish_part(base)
        return base, cut

    def _index_key(self, index: Node | None) -> str | int | type[NoValue] | None:
        if index is None:
            return None
        index_type = self.type_of(index)
        if is_nothing(index_type):
            return NoValue
        if isinstance(index_type, Literals) and len(index_type.values) == 1:
            value = index_type.values[0]
            if isinstance(value, str):
                return value
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
        return None

    def _is_scope_record(self, node: Node) -> bool:
        """Whether `node` is `inputs`, `ctx`, `run` or `run.outputs` themselves: records without
        a prototype (`sandbox/driver.js` `scopeBindings`)."""
        if node.type == "identifier":
            name = self.name(node)
            return name in _SCOPE_RECORDS and name in self.roots and not self.is_local(name)
        if node.type == "member_expression":
            obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
            return (obj is not None and prop is not None and self.is_global_root(obj, "run")
                    and self.name(prop) == "outputs")
        return False

    def is_global_root(self, node: Node, name: str) -> bool:
        return (node.type == "identifier" and self.name(node) == name and name in self.roots
                and not self.is_local(name))

    def _template(self, node: Node) -> ValueType:
        pieces = [child for child in node.named_children if child.type == "template_substitution"]
        if not pieces:
            text = decode_string_body(self.parsed.text(node)[1:-1], template=True)
            return StringType() if text is None else Literals((text,))
        for piece in pieces:
            inner = children(piece)
            if len(inner) == 1 and is_nothing(self.type_of(inner[0])):
                return NoValue()
        return StringType()

    def _ternary(self, node: Node) -> ValueType:
        condition = node.child_by_field_name("condition")
        consequence = node.child_by_field_name("consequence")
        alternative = node.child_by_field_name("alternative")
        if condition is None or consequence is None or alternative is None:
            return AnyValue()
        tested = self.type_of(condition)
        if is_nothing(tested):
            return NoValue()
        parts = []
        if not is_nothing(truthy_part(tested)):
            parts.append(self.type_of(consequence))
        if not is_nothing(falsy_part(tested)):
            parts.append(self.type_of(alternative))
        return join(*parts)

    def _array(self, node: Node) -> ValueType:
        items: list[ValueType] = []
        fixed, spread = 0, False
        expecting_item = True
        for child in node.children:
            if child.type == ",":
                if expecting_item:
                    return AnyValue()  # a hole: an item that is no property
                expecting_item = True
                continue
            if not child.is_named or child.type == "comment":
                continue
            expecting_item = False
            if child.type == "spread_element":
                spread = True
                spread_items = self.spread_items(child)
                if spread_items is None:
                    return AnyValue()
                items.append(spread_items)
            else:
                fixed += 1
                items.append(self.type_of(child))
            if is_nothing(items[-1]) and child.type != "spread_element":
                return NoValue()
        return ArrayType(join(*items), min_items=fixed, max_items=None if spread else fixed)

    def spread_items(self, spread: Node) -> ValueType | None:
        """The items `...x` adds to an array or an argument list (None: unknown)."""
        inner = children(spread)
        if len(inner) != 1:
            return None
        spread_type = self.type_of(inner[0])
        parts = []
        for option in options(spread_type):
            if isinstance(option, ArrayType):
                parts.append(option.items)
            elif is_string_type(option):
                parts.append(StringType(min_length=1, max_length=1))
            elif not isinstance(option, NullType | UndefinedType | BooleanType | NumberType):
                return None  # an object's own iterator, a literal's kind: not followed
        return join(*parts)

    def callback(self, node: Node, parameters: list[ValueType]) -> ValueType | None:
        """The type an arrow function `node` returns when called with arguments of the types
        `parameters` (None: not an arrow with an expression body)."""
        if node.type != "arrow_function" or any(c.type == "async" for c in node.children):
            return None
        body = node.child_by_field_name("body")
        if body is None or body.type == "statement_block":
            return None
        frame = self._bind(node, parameters)
        if frame is None:
            return None
        self.locals.append(frame)
        try:
            return self.type_of(body)
        finally:
            self.locals.pop()

    def _bind(self, arrow: Node, parameters: list[ValueType]) -> dict[str, ValueType] | None:
        single = arrow.child_by_field_name("parameter")
        if single is not None:
            names: list[Node] = [single]
        else:
            formal = arrow.child_by_field_name("parameters")
            names = children(formal) if formal is not None else []
        frame: dict[str, ValueType] = {}
        for position, parameter in enumerate(names):
            if parameter.type != "identifier":
                return None  # a pattern, a default, a rest: not followed
            name = self.name(parameter)
            if name is None:
                return None
            frame[name] = parameters[position] if position < len(parameters) else UndefinedType()
        return frame

