"""The inferred type of each construct (`analysis.types.infer.expression_type`), the types of
reads (`member_type`) and membership (`admits`). Engine facts are cited where a test pins one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    Union,
    ValueType,
)
from analysis.types.infer import (
    UNDEFINED,
    admits,
    expression_type,
    member_type,
    returned_type,
    text_type,
)
from analysis.types.program import MAX_DEPTH
from sandbox import Scope, evaluate

ITEM = ObjectType((("id", NumberType(integer=True)), ("tag", StringType())), frozenset({"id"}),
                  None)
INPUTS = ObjectType(
    (("name", StringType()), ("count", NumberType()), ("note", StringType()),
     ("items", ArrayType(ITEM)), ("maybe", Union((StringType(), NullType()))),
     ("größe", NumberType(integer=True))),
    frozenset({"name", "count", "items", "maybe", "größe"}), None)
OPEN = ObjectType((("a", StringType()),), frozenset({"a"}), BooleanType())
ROOTS: dict[str, ValueType] = {
    "inputs": INPUTS,
    "ctx": ObjectType((("region", StringType()),), frozenset({"region"}), None),
    "run": ObjectType((("outputs", ObjectType((("open", OPEN),), frozenset({"open"}), None)),),
                      frozenset({"outputs"}), None),
}
STRING_OR_UNDEFINED = Union((StringType(), UndefinedType()))


def infer(source: str, roots: dict[str, ValueType] | None = None) -> ValueType:
    return expression_type(ParsedExpression(source), ROOTS if roots is None else roots)


@pytest.mark.parametrize(("source", "expected"), [
    ("42", Literals((42,))),
    ("0x10", Literals((16,))),
    ("1_000.5", Literals((1000.5,))),
    ("'a\\u0041'", Literals(("aA",))),
    ("`plain`", Literals(("plain",))),
    ("`n=${inputs.count}`", StringType()),
    ("true", Literals((True,))),
    ("null", NullType()),
    ("undefined", UndefinedType()),
    ("[1, 'x']", ArrayType(Literals((1, "x")), min_items=2, max_items=2)),
])
def test_literals(source: str, expected: ValueType) -> None:
    assert infer(source) == expected


@pytest.mark.parametrize(("source", "expected"), [
    ("inputs.name", StringType()),
    ("inputs.note", STRING_OR_UNDEFINED),  # declared, not required
    ("inputs.nope", UndefinedType()),  # closed object, key not declared
    ("inputs['name']", StringType()),
    ("inputs.größe", NumberType(integer=True)),  # a non-ASCII key
    ("inputs['gr\\u00f6\\u00dfe']", NumberType(integer=True)),
    ("inputs.items[0]", Union((ITEM, UndefinedType()))),
    ("inputs.items.length", NumberType(integer=True, minimum=0)),
    ("run.outputs.open.b", Union((BooleanType(), UndefinedType()))),  # the extra keys' type
    ("inputs.maybe.length", NumberType(integer=True, minimum=0)),  # null's read throws
    ("inputs.nope.x", NoValue()),
])
def test_member_access(source: str, expected: ValueType) -> None:
    assert infer(source) == expected


def test_scope_records_have_no_prototype_but_their_values_do() -> None:
    # expression-sandbox-spec.md "Scope" (newer than the July engine snapshot 839f2bd, whose
    # sandbox.ts buildProgram JSON.parses ordinary objects): frozen null-prototype records;
    # sandbox/driver.js scopeBindings: inputs/ctx/run/run.outputs are create(null), the
    # values inside JSON.parse objects with Object.prototype.
    assert infer("inputs.toString") == UndefinedType()
    assert infer("run.outputs.open.toString") == AnyValue()
    scope = Scope(inputs={"name": "n", "count": 1, "items": [], "maybe": None, "größe": 2},
                  run_outputs={"open": {"a": "x"}})
    assert evaluate("typeof inputs.toString", "transform", scope) == "undefined"
    assert evaluate("typeof run.outputs.open.toString", "transform", scope) == "function"
    assert admits(infer("typeof run.outputs.open.toString"), "function")


@pytest.mark.parametrize(("source", "expected"), [
    ("inputs.note?.length", Union((NumberType(integer=True, minimum=0), UndefinedType()))),
    ("inputs.maybe?.length", Union((NumberType(integer=True, minimum=0), UndefinedType()))),
    # the whole chain is cut when the base is nullish, never a throw
    ("inputs.nope?.x.y", UndefinedType()),
    ("inputs.note ?? 'none'", Union((StringType(), Literals(("none",))))),
    ("inputs.note || 3", Union((StringType(), Literals((3,))))),
    ("inputs.name && 3", Literals(("", 3))),
    ("inputs.items || 'never'", ArrayType(ITEM)),  # an array is always truthy
    ("inputs.count > 1 ? 'big' : 0", Literals(("big", 0))),
    ("inputs.items ? 'yes' : 0", Literals(("yes",))),
])
def test_optional_chains_logic_and_ternaries(source: str, expected: ValueType) -> None:
    assert infer(source) == expected


@pytest.mark.parametrize("source", [
    "someGlobal.x",  # a free name that is no root
    "branches[0]",  # a root not given
    "x => x",  # a function
    "inputs.items.find(x => 1)[inputs.name]",  # a computed key
    "inputs.items.reduce((sum, x) => { return sum }, 0)",  # a block body
    "inputs[inputs.name]",  # a computed key
    "(String.prototype.trim = () => 1, inputs.name.trim())",  # rewrites a built-in
    "inputs.name.trim.call('x')",
    "{ get a() { return 1 } }",
    "inputs.name.",  # broken
])
def test_what_is_not_understood_is_unknown(source: str) -> None:
    assert infer(source) == AnyValue()


def test_a_callback_block_of_declarations_and_a_return_is_followed() -> None:
    assert infer("inputs.items.map(x => { const a = x.id, b = a * 2; let c = x.tag; "
                 "return { a, c } })") == ArrayType(ObjectType(
                     (("a", NumberType(integer=True)), ("c", STRING_OR_UNDEFINED)),
                     frozenset({"a"}), None))
    # a declaration that always throws makes the call throw
    assert infer("inputs.items.map(x => { const a = inputs.nope.x; return 1 })") == ArrayType(
        NoValue())
    # any other statement: unknown
    assert infer("inputs.items.map(x => { if (x) return 1; return 2 })") == ArrayType(AnyValue())


def test_member_type() -> None:
    assert member_type(NullType(), "a") == NoValue()
    assert member_type(UndefinedType(), 0) == NoValue()
    assert member_type(StringType(), "length") == NumberType(integer=True, minimum=0)
    assert member_type(StringType(), "trim") == AnyValue()
    assert member_type(ArrayType(StringType()), 3) == STRING_OR_UNDEFINED
    assert member_type(Literals(("ab",)), "length") == Literals((2,))
    assert member_type(Literals(("😀",)), "length") == Literals((2,))  # UTF-16 code units
    assert member_type(OPEN, "a") == StringType()
    assert member_type(ITEM, "tag") == STRING_OR_UNDEFINED


@pytest.mark.parametrize(("value_type", "value", "expected"), [
    (StringType(min_length=2), "ab", True),
    (StringType(min_length=2), "a", False),
    (NumberType(integer=True), 2.0, True),
    (NumberType(integer=True), True, False),
    (NumberType(), float("nan"), False),  # a JSON number is finite
    (NumberType(finite=False), float("nan"), True),
    (Literals((1,)), True, False),
    (Literals((True,)), True, True),
    (UndefinedType(), UNDEFINED, True),
    (UndefinedType(), None, False),
    (ITEM, {"id": 1}, True),
    (ITEM, {"tag": "x"}, False),  # id is required
    (ITEM, {"id": 1, "other": 2}, False),  # closed
    (OPEN, {"a": "x", "b": True}, True),
    (ArrayType(StringType(), max_items=1), ["a", "b"], False),
    (NoValue(), None, False),
    (AnyValue(), UNDEFINED, True),
])
def test_admits(value_type: ValueType, value: object, expected: bool) -> None:
    assert admits(value_type, value) is expected


def test_returned_type_is_what_json_hands_on() -> None:
    # expression-sandbox-spec.md "Result contract": undefined properties drop, undefined items
    # and nested NaN become null, a top-level number keeps its value.
    inferred = infer("{ a: inputs.note, b: [inputs.note], c: inputs.count / 2 }")
    assert returned_type(inferred) == ObjectType(
        (("a", StringType()), ("b", ArrayType(Union((StringType(), NullType())), 1, 1)),
         ("c", Union((NumberType(), NullType())))),
        frozenset({"b", "c"}), None)
    assert returned_type(infer("inputs.count / 2")) == NumberType(finite=False)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("inputs.?[]()'\"`${}+-!&|:,x=>ü😀\\\n<!--")))
def test_any_text_gets_a_type_without_raising(source: str) -> None:
    assert isinstance(text_type(source, ROOTS), ValueType.__args__)


@pytest.mark.parametrize("source", [
    "(" * 3000 + "inputs" + ")" * 3000,
    " + ".join(["inputs.count"] * 3000),
    "inputs" + ".a" * 3000,
])
def test_deep_expressions_are_unknown_beyond_the_depth_limit(source: str) -> None:
    assert text_type(source, ROOTS) == AnyValue()


def test_deep_literals_hold_unknown_below_the_depth_limit() -> None:
    inferred, levels = text_type("[" * 2000 + "]" * 2000, ROOTS), 0
    while isinstance(inferred, ArrayType):
        inferred, levels = inferred.items, levels + 1
    assert inferred == AnyValue() and levels <= MAX_DEPTH + 1


def test_a_key_always_undefined_is_not_in_the_returned_json() -> None:
    assert returned_type(infer("{ a: undefined, b: 1 }")) == ObjectType(
        (("b", Literals((1,))),), frozenset({"b"}), None)
