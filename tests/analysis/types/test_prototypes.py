"""The keys a primitive or an array has, pinned against the sandbox's QuickJS itself (the
engine's evaluator, expression-sandbox-spec.md): every name on the value and up its prototype
chain."""

import pytest

from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    BooleanType,
    Literals,
    NumberType,
    ObjectType,
    StringType,
    Union,
)
from analysis.types.prototypes import ARRAY_KEYS, BOOLEAN_KEYS, NUMBER_KEYS, STRING_KEYS, lacks_key
from sandbox import Scope, evaluate

CHAIN_NAMES = """(() => {
  const names = [];
  for (let p = %s; p !== null; p = Object.getPrototypeOf(p))
    for (const name of Object.getOwnPropertyNames(p)) if (!names.includes(name)) names.push(name);
  return names;
})()"""


@pytest.mark.parametrize(("value", "keys"), [
    ('""', STRING_KEYS), ("1", NUMBER_KEYS), ("true", BOOLEAN_KEYS), ("[]", ARRAY_KEYS),
])
def test_the_lists_are_the_sandboxs_own(value: str, keys: frozenset[str]) -> None:
    assert set(evaluate(CHAIN_NAMES % value, "transform", Scope())) == keys


def test_a_key_no_primitive_of_the_type_has() -> None:
    assert lacks_key(StringType(), "topic")
    assert lacks_key(Literals(("a", "b")), "topic")
    assert lacks_key(Union((NumberType(), BooleanType())), "topic")
    assert lacks_key(ArrayType(), "topic")
    assert lacks_key(NumberType(), "0")


@pytest.mark.parametrize(("value_type", "key"), [
    (StringType(), "length"), (StringType(), "trim"), (StringType(), "0"), (ArrayType(), "3"),
    (Literals(("a", 1)), "toFixed"), (ObjectType(), "topic"), (AnyValue(), "topic"),
    (Union((StringType(), ObjectType())), "topic"), (StringType(), "constructor"),
])
def test_a_key_one_may_have_is_not_lacking(value_type: object, key: str) -> None:
    assert not lacks_key(value_type, key)  # type: ignore[arg-type]
