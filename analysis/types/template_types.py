"""The type of a `{{ … }}` reference's value as the engine's interpolation resolves it, and where
that resolution surely fails.

The engine (HodeTech/Relavium `packages/core/src/interpolation/`, 839f2bd): `references.ts`
`parseHead` splits the head into a namespace, an identifier and a path (`run.outputs["id"]…`,
`inputs.NAME…`, `ctx.KEY…`); `path.ts` `getByPath` steps `.name` (`[A-Za-z0-9_-]+`),
`["key"]` / `['key']` and `[n]` into it — an own key of a plain object, an index of an array,
anything else `undefined`, never a throw; `filters.ts` applies the filters in order (`json`
fails on `undefined`, `length` wants a string, array or object, `read_file` a string, `default`
replaces null and undefined); `resolve.ts` `stringify` then fails on null or undefined
(`unresolved_reference`) and on an object or array (`unserializable`: "add a `| json`
filter"), and writes a string, number or boolean as text.

Contract:
- `reference_path(body)` → a `ReferencePath` (`kind` "node", "inputs" or "ctx", the identifier,
  the steps and where each step's key is in `body`) for a head the engine parses with a path it
  accepts, else None.
- `path_type(base, steps)` → the type `getByPath` gives.
- `first_missing_property(base, steps)` → the first `.name` / `["name"]` step that no value of
  the type has (each option known and none has it as an own key), with the type it steps into.
- `filter_failures(value_type, filters)` → `(index, filter name, expected)` of each filter
  every value of the type fails, stopping at the first; and `final_type` is what reaches
  `stringify` when none fails.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from analysis.document.templates import TemplateFilter
from analysis.naming import JS_WHITESPACE
from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    Literals,
    NoValue,
    NullType,
    NumberType,
    ObjectType,
    StringType,
    UndefinedType,
    ValueType,
)
from analysis.types.algebra import join, options
from analysis.types.membership import array_index

# references.ts NODE_OUTPUT / NAMESPACED (`run.id` has no value with a path: invalid-template's)
_NODE_OUTPUT = re.compile(r"run\.outputs\[\s*(['\"])([^'\"]*?)\1\s*\](.*)\Z", re.DOTALL)
_NAMESPACED = re.compile(r"(inputs|ctx)\.([A-Za-z0-9_-]+)(.*)\Z", re.DOTALL)
# path.ts: one step at a time
_DOT = re.compile(r"\.([A-Za-z0-9_-]+)")
_QUOTED = re.compile(rf"\[[{JS_WHITESPACE}]*(['\"])(.*?)\1[{JS_WHITESPACE}]*\]", re.DOTALL)
_INDEX = re.compile(r"\[([^\]]*)\]")
_INTEGER = re.compile(r"-?\d+\Z", re.ASCII)
_MAX_SAFE = 2**53 - 1

Step = str | int


@dataclass(frozen=True, slots=True)
class ReferencePath:
    kind: str
    identifier: str
    steps: tuple[Step, ...]
    # [start, end) in the reference's body of each step's key: the name after `.`, the text
    # between a bracket's quotes, an index's digits (a fix rewrites exactly that)
    spans: tuple[tuple[int, int], ...]


# a pure function of a short text, asked for every template reference on every version
@lru_cache(maxsize=8192)
def reference_path(body: str) -> ReferencePath | None:
    head = body.split("|", 1)[0] if "|" in body else body
    offset = len(head) - len(head.lstrip(JS_WHITESPACE))
    head = head.strip(JS_WHITESPACE)
    matched = _NODE_OUTPUT.match(head)
    if matched is None:
        matched = _NAMESPACED.match(head)
        if matched is None:
            return None
        kind, identifier = matched.group(1), matched.group(2)
    else:
        kind, identifier = "node", matched.group(2)
    path = matched.group(3)
    parsed = _steps(path.strip(JS_WHITESPACE),
                    offset + matched.start(3) + len(path) - len(path.lstrip(JS_WHITESPACE)))
    return None if parsed is None else ReferencePath(kind, identifier, *parsed)


def _steps(path: str, offset: int
           ) -> tuple[tuple[Step, ...], tuple[tuple[int, int], ...]] | None:
    """The steps of `path`, and each key's span shifted by `offset` (where `path` starts)."""
    steps: list[Step] = []
    spans: list[tuple[int, int]] = []
    at = 0
    while at < len(path):
        if (found := _DOT.match(path, at)) is not None:
            steps.append(found.group(1))
            key = 1
        elif (found := _QUOTED.match(path, at)) is not None:
            steps.append(found.group(2))
            key = 2
        elif (found := _INDEX.match(path, at)) is not None:
            inner = found.group(1).strip(JS_WHITESPACE)
            if not _INTEGER.match(inner) or not 0 <= int(inner) <= _MAX_SAFE:
                return None
            steps.append(int(inner))
            key = 1
        else:
            return None  # invalid-template's
        spans.append((offset + found.start(key), offset + found.end(key)))
        at = found.end()
    return tuple(steps), tuple(spans)


def path_type(base: ValueType, steps: Sequence[Step]) -> ValueType:
    value_type = base
    for step in steps:
        value_type = join(*(_step(option, step) for option in options(value_type)))
    return value_type


def _step(option: ValueType, step: Step) -> ValueType:
    if isinstance(option, AnyValue):
        return AnyValue()
    if isinstance(option, ArrayType):
        if isinstance(step, int) and array_index(step) is not None:
            return join(option.items, UndefinedType())
        return UndefinedType()
    if isinstance(option, ObjectType):
        if isinstance(step, int):
            return UndefinedType()  # an index of a plain object is not read
        for name, value_type in option.properties:
            if name == step:
                return value_type if name in option.required else join(value_type,
                                                                        UndefinedType())
        return UndefinedType() if option.additional is None else join(option.additional,
                                                                       UndefinedType())
    return UndefinedType()  # a string's, number's, boolean's, null's: not stepped into


def first_missing_property(base: ValueType, steps: Sequence[Step]
                           ) -> tuple[int, ValueType] | None:
    """The index of the first property step every value of the type lacks (getByPath gives
    `undefined` there on every run), and the type it steps into; None as soon as a type is not
    known (an open object's other keys, unknown) or the step is an index."""
    value_type = base
    for index, step in enumerate(steps):
        present = [option for option in options(value_type)
                   if not isinstance(option, NullType | UndefinedType)]
        if not present or any(isinstance(option, AnyValue | NoValue) for option in present):
            return None
        if isinstance(step, str) and all(_step(option, step) == UndefinedType()
                                         for option in present):
            return index, value_type
        value_type = path_type(value_type, (step,))
    return None


@dataclass(frozen=True)
class FilterFailure:
    index: int
    name: str
    expected: str


def _certainly(value_type: ValueType, kinds: tuple[type, ...]) -> bool:
    """Whether every value of the type (a known one) is of one of `kinds`."""
    found = False
    for option in options(value_type):
        if not isinstance(option, kinds):
            return False
        found = True
    return found


def never_string(value_type: ValueType) -> bool:
    """No value of the type is a string (and it is known)."""
    for option in options(value_type):
        if isinstance(option, AnyValue | StringType):
            return False
        if isinstance(option, Literals) and any(isinstance(value, str) for value in option.values):
            return False
    return any(True for _ in options(value_type))


def never_measurable(value_type: ValueType) -> bool:
    """No value of the type is a string, array or object: `length` fails on every one."""
    return never_string(value_type) and not any(
        isinstance(option, ArrayType | ObjectType) for option in options(value_type))


def is_container_value(value_type: ValueType) -> bool:
    """Every value of the type is an object or an array (`stringify` refuses each)."""
    return _certainly(value_type, (ArrayType, ObjectType))


def filter_failures(value_type: ValueType, filters: Sequence[TemplateFilter]
                    ) -> tuple[FilterFailure | None, ValueType]:
    """The first filter every value of the type fails, and the type that reaches `stringify`
    (unknown after a failure or a filter this module does not know)."""
    for index, found in enumerate(filters):
        name = found.name
        if name == "length":
            if never_measurable(value_type):
                return FilterFailure(index, name, "a string, list, or object"), AnyValue()
            value_type = NumberType(integer=True, minimum=0)
        elif name == "read_file":
            if never_string(value_type):
                return FilterFailure(index, name, "a file path string"), AnyValue()
            value_type = StringType()
        elif name == "json":
            if _certainly(value_type, (UndefinedType,)):
                return FilterFailure(index, name, "a JSON-serializable value"), AnyValue()
            value_type = StringType()
        else:
            value_type = AnyValue()  # `default`'s argument, or a filter invalid-template reports
    return None, value_type

