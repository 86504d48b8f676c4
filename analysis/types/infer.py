"""The type of an expression's value, from the types of the scope it reads.

Contract: `expression_type(parsed, roots)` is a type that holds every value the sandbox can
return for the expression (`parsed` as `analysis.document.expressions.parsing` wraps it, the
way the engine evaluates it) when `inputs`, `ctx`, `run` and `branches` hold values of the types
`roots` gives — or `AnyValue()`, unknown, for whatever is not understood: a root not given, any
other free name, a block body, a function, an expression that may rewrite a built-in
(`analysis.types.purity`). `NoValue()` means the evaluation always throws. The type is of the
JavaScript value before the result is handed on as JSON; `returned_type` gives what the engine
hands on (expression-sandbox-spec.md, "Result contract").

`text_type(source, roots)` is the same for an expression known by its text (the analysis keeps
facts by text, not parses). Each text is compiled once (`analysis.types.program`) and the
compiled form cached, so an analysis pays for the evaluation of the types alone. The compiled
form is made from the tree the expression's facts parsed (`PARSE_OBSERVERS` of
`analysis.document.expressions.facts`): a text is parsed once, not once for its facts and again
for its type.

`member_type` and `admits` live in `analysis.types.membership`; this module re-exports them.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from analysis.document.expressions.facts import PARSE_OBSERVERS
from analysis.document.expressions.parsing import ParsedExpression
from analysis.document.text_cache import text_cache
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
    UNDEFINED_TYPE,
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
from analysis.types.calls import call_type
from analysis.types.literals import ObjectShape
from analysis.types.membership import OBJECT_PROTOTYPE_KEYS, UNDEFINED, admits, member_type
from analysis.types.operators import binary_type, unary_type
from analysis.types.program import (
    ArrayLiteral,
    Arrow,
    Binary,
    Call,
    Const,
    Expr,
    Name,
    ObjectLiteral,
    Read,
    Sequence,
    Spread,
    Template,
    Ternary,
    Unary,
    compile_expression,
)

__all__ = ["UNDEFINED", "admits", "expression_type", "member_type", "returned_type", "text_type"]

_SCOPE_RECORDS = frozenset({"inputs", "ctx", "run"})


class _Handed(threading.local):
    """The parsed expression being compiled, so that a cache miss compiles the tree the
    caller already has instead of parsing the text again."""

    parsed: ParsedExpression | None = None


_HANDED = _Handed()


@text_cache(max_bytes=16 * 2**20)
def _program(source: str) -> Expr:
    parsed = _HANDED.parsed
    return compile_expression(
        parsed if parsed is not None and parsed.source == source else ParsedExpression(source))


def _compiled(parsed: ParsedExpression) -> Expr:
    """The compiled form of `parsed`'s text, compiled from `parsed` itself on a cache miss."""
    _HANDED.parsed = parsed
    try:
        return _program(parsed.source)
    finally:
        _HANDED.parsed = None


PARSE_OBSERVERS.append(_compiled)


def expression_type(parsed: ParsedExpression, roots: Mapping[str, ValueType]) -> ValueType:
    """The type of the expression's value given its roots' types (see the module docstring).
    The compiled expression is cached by its text, across analyses."""
    return Inference(roots).type_of(_compiled(parsed))


def text_type(source: str, roots: Mapping[str, ValueType]) -> ValueType:
    """`expression_type` for an expression known by its text: the compiled expression is looked
    up by the text (compiled when its facts were), so it parses only a text whose compiled form
    is not cached (evicted, or never seen by the facts)."""
    return Inference(roots).type_of(_program(source))


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
        # a key whose value is always undefined is never in the JSON
        properties = tuple((name, kept) for name, t in value_type.properties
                           if not is_nothing(kept := _json_property(t)))
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
    """One evaluation of a compiled expression's type: roots, and the parameters of the arrow
    functions being followed."""

    def __init__(self, roots: Mapping[str, ValueType]) -> None:
        self.roots = roots
        self.locals: list[dict[str, ValueType]] = []

    def is_local(self, name: str) -> bool:
        return any(name in frame for frame in self.locals)

    def is_global(self, name: str) -> bool:
        return name not in self.roots and not self.is_local(name)

    def type_of(self, expr: Expr) -> ValueType:
        if isinstance(expr, Const):
            return expr.type
        if isinstance(expr, Read | Call):
            value_type, cut = self.chain(expr)
            return join(value_type, UNDEFINED_TYPE) if cut else value_type
        if isinstance(expr, Name):
            return self._name(expr.name)
        if isinstance(expr, Binary):
            return binary_type(self, expr)
        if isinstance(expr, Unary):
            return unary_type(self, expr)
        if isinstance(expr, Ternary):
            return self._ternary(expr)
        if isinstance(expr, Template):
            if any(is_nothing(self.type_of(part)) for part in expr.substitutions):
                return NoValue()
            return StringType()
        if isinstance(expr, Sequence):
            parts = [self.type_of(part) for part in expr.items]
            return NoValue() if any(is_nothing(p) for p in parts) else parts[-1]
        if isinstance(expr, ArrayLiteral):
            return self._array(expr)
        if isinstance(expr, ObjectLiteral):
            return self._object(expr)
        return AnyValue()  # an arrow function's value

    def _name(self, name: str) -> ValueType:
        for frame in reversed(self.locals):
            if name in frame:
                return frame[name]
        if name in self.roots:
            return self.roots[name]
        return GLOBAL_VALUES.get(name, AnyValue())

    def chain(self, link: Read | Call) -> tuple[ValueType, bool]:
        """The type of a read or call link, and whether an optional link before it (`?.`) may
        have cut the chain short (its value then is `undefined`)."""
        if isinstance(link, Call):
            return call_type(self, link)
        base, cut = self.base(link)
        if is_nothing(base):
            return NoValue(), cut
        key = link.key
        if link.index is not None and is_nothing(self.type_of(link.index)):
            return NoValue(), cut
        if key is None:
            return AnyValue(), cut
        obj = link.obj
        if isinstance(obj, Name) and obj.name == "Math" and key in MATH_CONSTANTS and (
                self.is_global("Math")):
            return NumberType(), cut
        # (only the names every ordinary object inherits differ on a record without prototype)
        record = key in OBJECT_PROTOTYPE_KEYS and self._is_scope_record(obj)
        return member_type(base, key, null_prototype=record), cut

    def base(self, link: Read | Call) -> tuple[ValueType, bool]:
        obj = link.obj if isinstance(link, Read) else link.receiver
        if obj is None:
            return AnyValue(), False
        if link.chained and isinstance(obj, Read | Call):
            base, cut = self.chain(obj)
        else:
            base, cut = self.type_of(obj), False
        if link.optional:
            if not is_nothing(nullish_part(base)):
                cut = True
            base = non_nullish_part(base)
        return base, cut

    def _is_scope_record(self, obj: Expr) -> bool:
        """Whether `obj` is `inputs`, `ctx`, `run` or `run.outputs` themselves: records without
        a prototype (`sandbox/driver.js` `scopeBindings`)."""
        if isinstance(obj, Name):
            return obj.name in _SCOPE_RECORDS and obj.name in self.roots and not self.is_local(
                obj.name)
        return (isinstance(obj, Read) and obj.key == "outputs" and isinstance(obj.obj, Name)
                and obj.obj.name == "run" and "run" in self.roots and not self.is_local("run"))

    def _ternary(self, expr: Ternary) -> ValueType:
        tested = self.type_of(expr.condition)
        if is_nothing(tested):
            return NoValue()
        parts = []
        if not is_nothing(truthy_part(tested)):
            parts.append(self.type_of(expr.consequence))
        if not is_nothing(falsy_part(tested)):
            parts.append(self.type_of(expr.alternative))
        return join(*parts)

    def _array(self, expr: ArrayLiteral) -> ValueType:
        items: list[ValueType] = []
        fixed, spread = 0, False
        for item in expr.items:
            if isinstance(item, Spread):
                spread = True
                spread_items = self._spread_items(item)
                if spread_items is None:
                    return AnyValue()
                items.append(spread_items)
                continue
            fixed += 1
            items.append(self.type_of(item))
            if is_nothing(items[-1]):
                return NoValue()
        return ArrayType(join(*items), min_items=fixed or None, max_items=None if spread else fixed)

    def _spread_items(self, spread: Spread) -> ValueType | None:
        """The items `...x` adds to an array (None: unknown)."""
        parts = []
        for option in options(self.type_of(spread.value)):
            if isinstance(option, ArrayType):
                parts.append(option.items)
            elif is_string_type(option):
                parts.append(StringType(min_length=1, max_length=1))
            elif not isinstance(option, NullType | UndefinedType | BooleanType | NumberType):
                return None  # an object's own iterator, a literal's kind: not followed
        return join(*parts)

    def _object(self, expr: ObjectLiteral) -> ValueType:
        shape = ObjectShape()
        for member in expr.members:
            if isinstance(member, Spread):
                source = self.type_of(member.value)
                if is_nothing(source):
                    return NoValue()
                if not shape.spread_type(source):
                    return AnyValue()
                continue
            key, value = member
            value_type = self.type_of(value)
            if is_nothing(value_type):
                return NoValue()
            shape.define(key, value_type)
        return shape.build()

    def callback(self, arrow: Expr | Arrow | Spread,
                 parameters: list[ValueType]) -> ValueType | None:
        if not isinstance(arrow, Arrow) or arrow.body is None:
            return None
        frame = {name: parameters[position] if position < len(parameters) else UNDEFINED_TYPE
                 for position, name in enumerate(arrow.parameters)}
        self.locals.append(frame)
        try:
            for name, value in arrow.bindings:
                value_type = self.type_of(value)
                if is_nothing(value_type):
                    return NoValue()  # the declaration throws: the call does
                frame[name] = value_type
            return self.type_of(arrow.body)
        finally:
            self.locals.pop()
