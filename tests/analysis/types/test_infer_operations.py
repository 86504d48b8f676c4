"""Inference of operators, calls of the built-ins, arrow callbacks, spreads and what makes an
expression untrusted (`analysis.types.purity`)."""

from __future__ import annotations

import pytest

from analysis.document.expressions.parsing import ParsedExpression
from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    BooleanType,
    Literals,
    NoValue,
    NumberType,
    ObjectType,
    StringType,
    UndefinedType,
    Union,
    ValueType,
)
from analysis.types.infer import expression_type, text_type
from tests.analysis.types.test_infer import ITEM, ROOTS, STRING_OR_UNDEFINED, infer

COMPUTED = NumberType(finite=False)
COUNT = NumberType(integer=True, minimum=0)
POSITION = NumberType(integer=True, minimum=-1)


@pytest.mark.parametrize(("source", "expected"), [
    ("inputs.count + 1", COMPUTED),
    ("inputs.name + 1", StringType()),
    ("inputs.items + ''", StringType()),  # an array's toString
    ("inputs.note + 1", Union((StringType(), COMPUTED))),
    ("someGlobal + 1", AnyValue()),
    ("inputs.count - 'a'", COMPUTED),
    ("-inputs.count", COMPUTED),
    ("-someGlobal", AnyValue()),  # may be a BigInt
    ("+someGlobal", COMPUTED),  # unary plus throws on a BigInt
    ("inputs.count | 0", NumberType(integer=True)),
    ("inputs.count >>> 0", NumberType(integer=True, minimum=0)),
    ("inputs.count < 2", BooleanType()),
    ("inputs.name === 'a'", BooleanType()),
    ("!inputs.items", Literals((False,))),
    ("!inputs.note", BooleanType()),
    ("!inputs.nope", Literals((True,))),
    ("typeof inputs.maybe", Literals(("string", "object"))),
    ("typeof inputs.nope", Literals(("undefined",))),
    ("void inputs.name", UndefinedType()),
    ("(inputs.name, 2)", Literals((2,))),
    ("inputs.count > 0 || inputs.nope.x", Literals((True,))),
    ("[inputs.nope.x]", NoValue()),
    ("{ a: inputs.nope.x }", NoValue()),
    ("`${inputs.nope.x}`", NoValue()),
])
def test_operators(source: str, expected: ValueType) -> None:
    assert infer(source) == expected


@pytest.mark.parametrize(("source", "expected"), [
    ("inputs.items.map(x => x.tag)", ArrayType(STRING_OR_UNDEFINED)),
    ("inputs.items.map((x, i) => i)", ArrayType(COUNT)),
    ("inputs.items.map((x, i, all) => all.length)", ArrayType(COUNT)),
    ("inputs.items.map(x => { return x })", ArrayType(ITEM)),
    ("inputs.items.map(x => { x; return x })", ArrayType(AnyValue())),
    ("inputs.items.filter(x => x.id > 1)", ArrayType(ITEM)),
    ("inputs.items.find(x => x.id === 1)", Union((ITEM, UndefinedType()))),
    ("inputs.items.some(x => x.id)", BooleanType()),
    ("inputs.items.flatMap(x => [x.id, x.tag])",
     ArrayType(Union((NumberType(integer=True), StringType(), UndefinedType())))),
    ("inputs.items.reduce((sum, x) => x.id, 0)",
     Union((NumberType(integer=True), Literals((0,))))),
    ("inputs.items.reduce((sum, x) => x.id)", Union((NumberType(integer=True), ITEM))),
    ("inputs.items.slice(1)", ArrayType(ITEM)),
    ("inputs.items.concat([1])", ArrayType(Union((ITEM, Literals((1,)))))),
    ("[[1], 2].flat()", ArrayType(Literals((1, 2)))),
    ("inputs.items.includes(1)", BooleanType()),
    ("inputs.items.indexOf(1)", POSITION),
    ("inputs.items.join('-')", StringType()),
    ("inputs.items.at(-1)", Union((ITEM, UndefinedType()))),
    # a parameter shadows a root and a global
    ("inputs.items.map(inputs => inputs.id)", ArrayType(NumberType(integer=True))),
    ("inputs.items.map(Math => Math.PI)", ArrayType(UndefinedType())),
])
def test_array_methods_and_callbacks(source: str, expected: ValueType) -> None:
    assert infer(source) == expected


@pytest.mark.parametrize(("source", "expected"), [
    ("inputs.name.toUpperCase()", StringType()),
    ("inputs.name.split(',')", ArrayType(StringType())),
    ("inputs.name.startsWith('a')", BooleanType()),
    ("inputs.name.trim().length", COUNT),
    ("inputs.name.replace('a', x => x + 1)", StringType()),
    ("inputs.note?.trim()", STRING_OR_UNDEFINED),
    ("inputs.note?.trim().length", Union((COUNT, UndefinedType()))),
    ("inputs.maybe.trim()", StringType()),  # null's call throws: no value from it
    ("inputs.count.toFixed(2)", StringType()),
    ("inputs.name.localeCompare", AnyValue()),  # a method read as a value
    ("inputs.name.trim?.()", AnyValue()),
])
def test_string_and_number_methods(source: str, expected: ValueType) -> None:
    assert infer(source) == expected


OPEN_VALUES = Union((StringType(), BooleanType()))


@pytest.mark.parametrize(("source", "expected"), [
    ("Object.keys(inputs)", ArrayType(StringType())),
    ("Object.values(run.outputs.open)", ArrayType(OPEN_VALUES)),
    ("Object.entries(run.outputs.open)",
     ArrayType(ArrayType(OPEN_VALUES, min_items=2, max_items=2))),
    ("Object.assign({}, run.outputs.open, { b: 1 })",
     ObjectType((("a", StringType()), ("b", Literals((1,)))), frozenset({"a", "b"}),
                BooleanType())),
    ("Object.fromEntries([])", AnyValue()),
    ("Math.round(inputs.count)", COMPUTED),
    ("Math.PI", NumberType()),
    ("Number(inputs.name)", COMPUTED),
    ("String(1)", StringType()),
    ("Boolean(0)", BooleanType()),
    ("Array.isArray(inputs.items)", BooleanType()),
    ("JSON.parse(inputs.name)", AnyValue()),
    ("JSON.stringify(inputs)", STRING_OR_UNDEFINED),
    ("parseInt(inputs.name)", COMPUTED),
])
def test_global_functions(source: str, expected: ValueType) -> None:
    assert infer(source) == expected


@pytest.mark.parametrize(("source", "expected"), [
    ("{ a: inputs.note }", ObjectType((("a", STRING_OR_UNDEFINED),), frozenset(), None)),
    ("{ ...run.outputs.open, a: 1 }",
     ObjectType((("a", Literals((1,))),), frozenset({"a"}), BooleanType())),
    ("{ a: 1, ...run.outputs.open }",
     ObjectType((("a", StringType()),), frozenset({"a"}), BooleanType())),
    ("{ ...inputs.note }", AnyValue()),  # a string's spread: not followed
    ("{ ...(inputs.count > 1 ? run.outputs.open : null) }",
     ObjectType((("a", StringType()),), frozenset(), BooleanType())),
    ("{ 'größe': 1, 2: 'b' }",
     ObjectType((("größe", Literals((1,))), ("2", Literals(("b",)))),
                frozenset({"größe", "2"}), None)),
    ("{ toString: 1 }", AnyValue()),  # may change how the object becomes text
    ("[...inputs.items, 1]", ArrayType(Union((ITEM, Literals((1,)))), min_items=1)),
    ("[...inputs.name]", ArrayType(StringType(min_length=1, max_length=1))),
    ("({ a: { b: 'x' } }).a.b", Literals(("x",))),
    ("({ a: 1 }).toString", AnyValue()),  # an object literal has Object.prototype
])
def test_object_and_array_literals(source: str, expected: ValueType) -> None:
    assert infer(source) == expected


@pytest.mark.parametrize("source", [
    "(inputs.items.length = 0, inputs.name.trim())",
    "inputs.count++",
    "delete inputs.name",
    "new Array(3)",
    "inputs.name.constructor",
    "inputs.name['constructor']",
    "Reflect.ownKeys(inputs)",
    "inputs.items[inputs.count]()",
    "inputs.name.trim.call(inputs.name)",
    "String.raw`x`",
    "Math.max(inputs.items[inputs.count])",  # a computed read handed to a call
    "Object.assign(inputs, {})",  # writes into an object it did not make
    "(f => f(inputs))(Number)",
])
def test_what_may_rewrite_a_builtin_is_unknown(source: str) -> None:
    assert infer(source) == AnyValue()


def test_a_fresh_object_may_be_assigned_into() -> None:
    assert infer("Object.assign({}, { a: 1 })") == ObjectType(
        (("a", Literals((1,))),), frozenset({"a"}), None)


def test_text_type_agrees_with_expression_type() -> None:
    source = "inputs.items.map(x => x.id)"
    assert text_type(source, ROOTS) == expression_type(ParsedExpression(source), ROOTS)
    assert text_type(source, {}) == AnyValue()  # no roots given


def test_non_ascii_output_names() -> None:
    roots: dict[str, ValueType] = {"run": ObjectType((("outputs", ObjectType(
        (("分类", ObjectType((("标签", StringType()),), frozenset({"标签"}), None)),),
        frozenset({"分类"}), None)),), frozenset({"outputs"}), None)}
    assert infer('run.outputs["分类"].标签', roots) == StringType()
    assert infer('run.outputs.分类["未知"]', roots) == UndefinedType()


def test_object_assign_of_spread_branches() -> None:
    # a custom merge's usual form: each completed branch's keys, none of them certain
    branch = ObjectType((("score", NumberType()),), frozenset({"score"}), None)
    roots: dict[str, ValueType] = {"branches": ArrayType(branch),
                                   "ctx": ObjectType((("team", StringType()),),
                                                     frozenset({"team"}), None)}
    assert infer("Object.assign({}, ...branches, { team: ctx.team })", roots) == ObjectType(
        (("score", NumberType()), ("team", StringType())), frozenset({"team"}), None)
    either = ArrayType(Union((branch, ObjectType((("label", StringType()),), frozenset(),
                                                 None))))
    assert infer("Object.assign({}, ...branches)", {"branches": either}) == ObjectType(
        (("score", NumberType()), ("label", StringType())), frozenset(), None)
    assert infer("Object.assign({}, ...branches)", {"branches": ArrayType(StringType())}) == (
        AnyValue())


def test_object_assign_of_what_may_hold_a_proto_key_is_unknown() -> None:
    # Object.assign sets keys with [[Set]]: an own "__proto__" key holding an object becomes the
    # target's prototype, whose keys then read through (ECMA-262 §20.1.2.1, B.2.2.1)
    proto = ObjectType((("__proto__", ObjectType()),), frozenset({"__proto__"}), None)
    assert infer("Object.assign({}, inputs)", {"inputs": proto}) == AnyValue()
    opened = ObjectType((), frozenset(), AnyValue())
    assert infer("Object.assign({}, inputs)", {"inputs": opened}) == AnyValue()
    # a spread copies the key as a key
    assert infer("{ ...inputs }", {"inputs": proto}) == proto
