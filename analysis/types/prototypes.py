"""Which keys a string, number, boolean or array has in the sandbox: its own (`length`, an index)
and every name up its prototype chain, as the engine's QuickJS defines them (ECMA-262 with
Annex B's string HTML methods and `__proto__` accessors; the lists are pinned against the
sandbox itself by tests/analysis/types/test_prototypes.py). A key outside them reads
`undefined`: what lets a check say that text has no property `topic`.

`lacks_key(value_type, key)` → True when every value of the type is such a primitive or array
and none has `key`; False whenever one might (an object, an unknown, a union with either).
"""

from __future__ import annotations

from analysis.schema.value_types import (
    ArrayType,
    BooleanType,
    Literals,
    NumberType,
    StringType,
    ValueType,
)
from analysis.types.algebra import options
from analysis.types.membership import OBJECT_PROTOTYPE_KEYS, array_index

STRING_KEYS = OBJECT_PROTOTYPE_KEYS | {
    "length", "anchor", "at", "big", "blink", "bold", "charAt", "charCodeAt", "codePointAt",
    "concat", "endsWith", "fixed", "fontcolor", "fontsize", "includes", "indexOf",
    "isWellFormed", "italics", "lastIndexOf", "link", "localeCompare", "match", "matchAll",
    "normalize", "padEnd", "padStart", "repeat", "replace", "replaceAll", "search", "slice",
    "small", "split", "startsWith", "strike", "sub", "substr", "substring", "sup",
    "toLocaleLowerCase", "toLocaleUpperCase", "toLowerCase", "toUpperCase", "toWellFormed",
    "trim", "trimEnd", "trimLeft", "trimRight", "trimStart",
}
NUMBER_KEYS = OBJECT_PROTOTYPE_KEYS | {"toExponential", "toFixed", "toPrecision"}
BOOLEAN_KEYS = OBJECT_PROTOTYPE_KEYS
ARRAY_KEYS = OBJECT_PROTOTYPE_KEYS | {
    "length", "at", "concat", "copyWithin", "entries", "every", "fill", "filter", "find",
    "findIndex", "findLast", "findLastIndex", "flat", "flatMap", "forEach", "includes",
    "indexOf", "join", "keys", "lastIndexOf", "map", "pop", "push", "reduce", "reduceRight",
    "reverse", "shift", "slice", "some", "sort", "splice", "toReversed", "toSorted",
    "toSpliced", "unshift", "values", "with",
}


def _keys(option: ValueType) -> frozenset[str] | None:
    """The keys every value of `option` has beside its indices, None when it may be anything
    else."""
    if isinstance(option, StringType):
        return STRING_KEYS
    if isinstance(option, NumberType):
        return NUMBER_KEYS
    if isinstance(option, BooleanType):
        return BOOLEAN_KEYS
    if isinstance(option, ArrayType):
        return ARRAY_KEYS
    if isinstance(option, Literals) and option.values:
        kinds = {_literal_keys(value) for value in option.values}
        return kinds.pop() if len(kinds) == 1 else None
    return None


def _literal_keys(value: object) -> frozenset[str] | None:
    if isinstance(value, bool):
        return BOOLEAN_KEYS
    if isinstance(value, str):
        return STRING_KEYS
    if isinstance(value, int | float):
        return NUMBER_KEYS
    return None  # null: reading it throws, another check's


def lacks_key(value_type: ValueType, key: str) -> bool:
    found = False
    for option in options(value_type):
        keys = _keys(option)
        if keys is None or key in keys:
            return False
        if array_index(key) is not None and keys in (STRING_KEYS, ARRAY_KEYS):
            return False  # an index of a string or array may be there
        found = True
    return found
