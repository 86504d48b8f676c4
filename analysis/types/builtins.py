"""What the built-ins an expression may call return: methods of strings, numbers and arrays,
and the functions of `Math`, `JSON`, `Object`, `Array`, `Number` and `String`
(expression-sandbox-spec.md, "Language surface": the standard constructors and their pure
prototype methods, `Math` without `random`, `JSON`).

Each table maps a name to the type of what the call returns whatever its arguments are; a
method whose result depends on a callback or on its receiver's items is computed by
`analysis.types.infer`. A name not listed is unknown: nothing is said about it.
"""

from __future__ import annotations

from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    BooleanType,
    NumberType,
    StringType,
    UndefinedType,
    Union,
    ValueType,
)

STRING = StringType()
BOOLEAN = BooleanType()
# A number JavaScript computed: NaN and ±Infinity included.
COMPUTED_NUMBER = NumberType(finite=False)
# indexOf and its kin: -1 when not found.
POSITION = NumberType(integer=True, minimum=-1)
COUNT = NumberType(integer=True, minimum=0)
STRING_OR_UNDEFINED = Union((StringType(), UndefinedType()))

STRING_METHODS: dict[str, ValueType] = {
    **dict.fromkeys((
        "charAt", "concat", "normalize", "padEnd", "padStart", "repeat", "replace", "replaceAll",
        "slice", "substring", "substr", "toLowerCase", "toUpperCase", "toLocaleLowerCase",
        "toLocaleUpperCase", "trim", "trimStart", "trimEnd", "trimLeft", "trimRight",
        "toString", "valueOf", "toWellFormed"), STRING),
    "at": STRING_OR_UNDEFINED,
    **dict.fromkeys(("startsWith", "endsWith", "includes", "isWellFormed"), BOOLEAN),
    **dict.fromkeys(("indexOf", "lastIndexOf", "search"), POSITION),
    # NaN past the end
    "charCodeAt": COMPUTED_NUMBER,
    "codePointAt": Union((COUNT, UndefinedType())),
    "localeCompare": COMPUTED_NUMBER,
    "split": ArrayType(STRING),
}

NUMBER_METHODS: dict[str, ValueType] = {
    **dict.fromkeys(("toFixed", "toPrecision", "toExponential", "toString", "toLocaleString"),
                    STRING),
}

BOOLEAN_METHODS: dict[str, ValueType] = {"toString": STRING}

# Array methods whose result does not depend on the receiver's items or a callback.
ARRAY_FIXED_METHODS: dict[str, ValueType] = {
    **dict.fromkeys(("some", "every", "includes"), BOOLEAN),
    **dict.fromkeys(("indexOf", "lastIndexOf", "findIndex", "findLastIndex"), POSITION),
    **dict.fromkeys(("join", "toString"), STRING),
    "forEach": UndefinedType(),
}
# Array methods returning an array of the receiver's own items (a subset, reordered or copied).
ARRAY_SAME_ITEMS = frozenset({"filter", "slice", "toReversed", "toSorted", "reverse", "sort"})

_MATH_FUNCTIONS = (
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "clz32",
    "cos", "cosh", "exp", "expm1", "floor", "fround", "hypot", "imul", "log", "log10", "log1p",
    "log2", "max", "min", "pow", "round", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
)
MATH_CONSTANTS = frozenset({"E", "LN10", "LN2", "LOG10E", "LOG2E", "PI", "SQRT1_2", "SQRT2"})

# Namespace functions whose result does not depend on the arguments' types.
NAMESPACE_FUNCTIONS: dict[tuple[str, str], ValueType] = {
    **{("Math", name): COMPUTED_NUMBER for name in _MATH_FUNCTIONS},
    ("JSON", "parse"): AnyValue(),
    ("JSON", "stringify"): STRING_OR_UNDEFINED,  # undefined for undefined or a function
    ("Object", "keys"): ArrayType(STRING),
    ("Object", "getOwnPropertyNames"): ArrayType(STRING),
    ("Object", "hasOwn"): BOOLEAN,
    ("Object", "is"): BOOLEAN,
    ("Object", "isFrozen"): BOOLEAN,
    ("Object", "isSealed"): BOOLEAN,
    ("Object", "isExtensible"): BOOLEAN,
    ("Array", "isArray"): BOOLEAN,
    ("Number", "isInteger"): BOOLEAN,
    ("Number", "isFinite"): BOOLEAN,
    ("Number", "isNaN"): BOOLEAN,
    ("Number", "isSafeInteger"): BOOLEAN,
    ("Number", "parseFloat"): COMPUTED_NUMBER,
    ("Number", "parseInt"): COMPUTED_NUMBER,
    ("String", "fromCharCode"): STRING,
    ("String", "fromCodePoint"): STRING,
}
NAMESPACES = frozenset(namespace for namespace, _ in NAMESPACE_FUNCTIONS) | {"Object"}

# Global functions called by name.
GLOBAL_FUNCTIONS: dict[str, ValueType] = {
    "Number": COMPUTED_NUMBER,
    "String": STRING,
    "Boolean": BOOLEAN,
    "parseInt": COMPUTED_NUMBER,
    "parseFloat": COMPUTED_NUMBER,
    "isNaN": BOOLEAN,
    "isFinite": BOOLEAN,
}
# Global values read by name.
GLOBAL_VALUES: dict[str, ValueType] = {
    "NaN": COMPUTED_NUMBER,
    "Infinity": COMPUTED_NUMBER,
    "undefined": UndefinedType(),
}
