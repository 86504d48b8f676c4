"""Hypothesis strategies for the inference's property tests: random types of the type language,
values they admit, and expressions over the scope roots."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    BooleanType,
    Literals,
    NullType,
    NumberType,
    ObjectType,
    StringType,
    Union,
    ValueType,
)

# Keys of random objects: plain, non-ASCII, an index, and names the prototypes also have.
KEYS = ("a", "b", "größe", "0", "length", "toString", "name")
_TEXT = st.text(alphabet="ab ,é😀", max_size=4)
_JSON_SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | _TEXT
_JSON = st.recursive(_JSON_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(KEYS), inner, max_size=3), max_leaves=6)


def _string_type(low: int, extra: int | None) -> StringType:
    return StringType(min_length=low or None, max_length=None if extra is None else low + extra)


_LEAVES: st.SearchStrategy[ValueType] = st.one_of(
    st.builds(_string_type, st.integers(0, 2), st.none() | st.integers(0, 3)),
    st.builds(NumberType, integer=st.booleans(), minimum=st.none() | st.sampled_from([-2, 0])),
    st.just(BooleanType()),
    st.just(NullType()),
    st.lists(_JSON_SCALARS, min_size=1, max_size=3).map(lambda v: Literals(tuple(v))),
    st.just(AnyValue()),
)


def _object_types(inner: st.SearchStrategy[ValueType]) -> st.SearchStrategy[ValueType]:
    def build(properties: dict[str, ValueType], required: list[bool],
              additional: ValueType | None) -> ObjectType:
        names = list(properties)
        return ObjectType(tuple(properties.items()),
                          frozenset(n for n, r in zip(names, required, strict=False) if r),
                          additional)
    return st.builds(build, st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
                     st.lists(st.booleans(), min_size=3, max_size=3), st.none() | inner)


TYPES: st.SearchStrategy[ValueType] = st.recursive(_LEAVES, lambda inner: st.one_of(
    st.builds(ArrayType, inner, min_items=st.none() | st.just(1)),
    _object_types(inner),
    st.lists(inner, min_size=2, max_size=2).map(lambda o: Union(tuple(o))),
), max_leaves=6)


def values_of(value_type: ValueType) -> st.SearchStrategy[object]:
    """JSON values the type admits."""
    if isinstance(value_type, AnyValue):
        return _JSON
    if isinstance(value_type, StringType):
        return st.text(alphabet="ab ,é😀", min_size=value_type.min_length or 0,
                       max_size=value_type.max_length)
    if isinstance(value_type, NumberType):
        if value_type.integer:
            return st.integers(min_value=value_type.minimum, max_value=50)  # type: ignore[arg-type]
        return st.floats(min_value=value_type.minimum, max_value=50.0, allow_nan=False,
                         allow_infinity=False)
    if isinstance(value_type, BooleanType):
        return st.booleans()
    if isinstance(value_type, NullType):
        return st.none()
    if isinstance(value_type, Literals):
        return st.sampled_from(value_type.values)
    if isinstance(value_type, Union):
        return st.one_of([values_of(option) for option in value_type.options])
    if isinstance(value_type, ArrayType):
        return st.lists(values_of(value_type.items), min_size=value_type.min_items or 0,
                        max_size=3)
    assert isinstance(value_type, ObjectType)
    return _objects(value_type)


def _objects(value_type: ObjectType) -> st.SearchStrategy[object]:
    declared = dict(value_type.properties)
    required = {name: values_of(declared[name]) for name in value_type.required}
    optional = {name: values_of(t) for name, t in declared.items() if name not in required}
    fixed = st.fixed_dictionaries(required, optional=optional)
    if value_type.additional is None:
        return fixed
    extra_keys = [key for key in KEYS if key not in declared]
    extras = st.dictionaries(st.sampled_from(extra_keys), values_of(value_type.additional),
                             max_size=2) if extra_keys else st.just({})
    return st.builds(lambda a, b: {**b, **a}, fixed, extras)


# Expressions: what a read may start from, the keys and literals they use.
_ROOTS = ("inputs", "ctx", "run.outputs", "run", "branches", "x", "acc")
_LITERALS = ("0", "1", "-1", "2.5", "''", "'a'", "'größe'", "true", "false", "null", "undefined",
             "[]", "{}", "NaN")
_BINARY = ("+", "-", "*", "/", "%", "??", "||", "&&", "===", "==", "!==", "<", ">=")
_UNARY = ("!", "-", "+", "typeof ", "void ", "~")


def _key_reads(base: str, key: str) -> list[str]:
    reads = [f"{base}[{json.dumps(key, ensure_ascii=False)}]", f"{base}?.[{json.dumps(key)}]"]
    if key.isidentifier():
        reads += [f"{base}.{key}", f"{base}?.{key}"]
    return reads


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    key = st.sampled_from(KEYS)
    pairs = st.tuples(inner, inner)
    method = st.sampled_from((
        "map(x => {b})", "map(x => { const v = {b}; return [v, x] })", "filter(x => {b})",
        "find(x => {b})", "some(x => {b})",
        "every(x => {b})", "flatMap(x => {b})", "reduce((acc, x) => {b}, 0)",
        "reduce((acc, x) => {b})", "slice(1)", "flat()", "concat({b})", "includes({b})",
        "indexOf({b})", "join(',')", "at(0)", "toUpperCase()", "trim()", "split(',')",
        "replace('a', 'b')", "startsWith('a')", "toFixed(1)", "charCodeAt(0)", "toString()"))
    function = st.sampled_from((
        "Object.keys({a})", "Object.values({a})", "Object.entries({a})",
        "Object.assign({{}}, {a}, {b})", "Math.max({a}, {b})", "Math.floor({a})", "Number({a})",
        "String({a})", "Boolean({a})", "Array.isArray({a})", "JSON.stringify({a})",
        "JSON.parse({a})", "({{ k: {a}, ...{b} }})", "[{a}, ...{b}]", "`${{{a}}}-{{}}`",
        "Object.assign({{}}, ...{a}, {b})", "Object.assign({{}}, {a}, ...{b})",
        "({a} ? {b} : 1)", "({a}, {b})", "parseInt({a})"))
    return st.one_of(
        st.tuples(inner, key).flatmap(lambda p: st.sampled_from(_key_reads(p[0], p[1]))),
        st.builds(lambda e, i: f"{e}[{i}]", inner, st.sampled_from(("0", "1", "'length'"))),
        st.builds(lambda e: f"{e}.length", inner),
        st.builds(lambda p, op: f"({p[0]} {op} {p[1]})", pairs, st.sampled_from(_BINARY)),
        st.builds(lambda e, op: f"({op}{e})", inner, st.sampled_from(_UNARY)),
        st.builds(lambda p, m: f"{p[0]}.{m.replace('{b}', p[1])}", pairs, method),
        st.builds(lambda p, f: f.format(a=p[0], b=p[1]), pairs, function),
    )


EXPRESSIONS: st.SearchStrategy[str] = st.recursive(
    st.sampled_from(_ROOTS + _LITERALS), _extend, max_leaves=8)
