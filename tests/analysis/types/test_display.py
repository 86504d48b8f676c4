"""`format_type`: TypeScript-like, bounded, and never a value beyond a schema's own enum."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

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
from analysis.types.display import format_type


def test_scalars_read_as_typescript_names_them() -> None:
    assert [format_type(t) for t in (AnyValue(), NoValue(), StringType(), NumberType(),
                                     NumberType(integer=True), BooleanType(), NullType(),
                                     UndefinedType())] == [
        "unknown", "never", "string", "number", "number", "boolean", "null", "undefined"]


def test_literals_and_unions() -> None:
    assert format_type(Literals(("low", "high"))) == '"low" | "high"'
    assert format_type(Literals((1, 2.5, True, None))) == "1 | 2.5 | true | null"
    assert format_type(Union((StringType(), UndefinedType(), StringType()))) == \
        "string | undefined"
    # reading through a value that may be undefined: the throwing branch adds nothing
    assert format_type(Union((StringType(), NoValue()))) == "string"


def test_arrays_parenthesise_a_union() -> None:
    assert format_type(ArrayType(StringType())) == "string[]"
    assert format_type(ArrayType(Union((NumberType(), NullType())))) == "(number | null)[]"
    assert format_type(ArrayType(ArrayType(BooleanType()))) == "boolean[][]"


def test_objects_mark_optional_keys_quote_odd_names_and_show_open_keys() -> None:
    closed = ObjectType((("severity", Literals(("low", "high"))), ("ticket-id", NumberType())),
                        frozenset({"severity"}), None)
    assert format_type(closed) == '{ severity: "low" | "high"; "ticket-id"?: number }'
    assert format_type(ObjectType()) == "{ [key: string]: unknown }"
    assert format_type(ObjectType(additional=None)) == "{}"


def test_a_wide_object_is_cut_with_a_count() -> None:
    wide = ObjectType((("severity", Literals(("low", "high"))),
                       *((f"field{i}", StringType()) for i in range(14))),
                      frozenset({"severity"}), None)
    text = format_type(wide, width=60)
    assert text.startswith('{ severity: "low" | "high"; field0?: string;')
    assert text.endswith(" more }") and len(text) <= 60
    shown = text.count("?:") + 1
    assert f"… {15 - shown} more" in text


def test_a_long_enum_member_is_cut() -> None:
    text = format_type(Literals(("x" * 200,)))
    assert len(text) < 30 and text.endswith('…"')


def test_escapes_count_towards_a_cut() -> None:
    assert format_type(Literals(("\x07" * 40,))) == '"' + "\\u0007" * 3 + '…"'
    key = ObjectType((("a\x1fb", StringType()),), frozenset(), None)
    assert format_type(key) == '{ "a\\u001fb"?: string }'
    assert format_type(Literals(("x" * 24,))) == '"' + "x" * 24 + '"'


_SCALARS = st.sampled_from([AnyValue(), StringType(), NumberType(), BooleanType(), NullType(),
                            UndefinedType(), Literals(("a", "b"))])


def _types() -> st.SearchStrategy[ValueType]:
    names = st.text(min_size=1, max_size=30)
    return st.recursive(_SCALARS, lambda inner: st.one_of(
        inner.map(ArrayType),
        st.lists(st.tuples(names, inner), max_size=30, unique_by=lambda p: p[0]).map(
            lambda props: ObjectType(tuple(props), frozenset(), None)),
        st.lists(inner, min_size=2, max_size=20).map(lambda o: Union(tuple(o))),
    ), max_leaves=60)


@settings(max_examples=150, deadline=None)
@given(_types(), st.integers(min_value=24, max_value=120))
# found by a CI run: a key of control characters, each six once escaped, nested in arrays
@example(ArrayType(ArrayType(ArrayType(Union((
    ObjectType((("00000000000000\x1f\x1f\x07\x07", AnyValue()),), frozenset(), None),
    StringType()))))), 24)
def test_any_type_stays_near_its_width(value_type: ValueType, width: int) -> None:
    # the width, plus the ` | … N more` of a union too wide to show two options
    assert len(format_type(value_type, width=width)) <= width + len(" | … 99 more")


def test_unknown_absorbs_a_union() -> None:
    assert format_type(Union((AnyValue(), UndefinedType()))) == "unknown"
    assert format_type(ArrayType(Union((StringType(), AnyValue())))) == "unknown[]"


def test_a_literal_a_wider_option_holds_is_not_repeated() -> None:
    assert format_type(Union((StringType(), Literals(("none",))))) == "string"
    assert format_type(Union((NumberType(), Literals(("none", 1))))) == 'number | "none" | 1'
    assert format_type(Union((BooleanType(), Literals((True,)), NullType()))) == "boolean | null"


def test_undefined_comes_last() -> None:
    assert format_type(Union((UndefinedType(), Literals(("free", "pro"))))) == \
        '"free" | "pro" | undefined'


def test_nested_objects_stay_within_the_width() -> None:
    # found by an exploring Hypothesis run: each nested object took its own 24-character floor
    inner = ObjectType((("0" * 19, AnyValue()), ("0", AnyValue())), frozenset(), None)
    outer = ArrayType(ObjectType((("00000", ArrayType(inner)), ("0", AnyValue())),
                                 frozenset(), None))
    text = format_type(outer, width=24)
    assert len(text) <= 24 and text.startswith("{ ") and text.endswith("[]")
    assert format_type(ObjectType((("severity", Literals(("low", "high"))),),
                                  frozenset({"severity"}), None), width=24) == "{ … }"
