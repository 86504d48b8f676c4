"""The type of a workflow's declared inputs as the engine admits them (ADR-0083), read by the
dataflow (`inputs.*`) and, field by field (`input_field`), by dry runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from analysis.document.model import InputDecl
from analysis.document.yaml_nodes import plain_value
from analysis.schema.value_types import (
    AnyValue,
    BooleanType,
    Literals,
    NumberType,
    ObjectType,
    StringType,
    ValueType,
    restricted,
)

# The input types whose values are text.
_TEXT_INPUTS = ("string", "file_path", "code_diff", "secret")


def inputs_type(inputs: Sequence[InputDecl]) -> ObjectType:
    """The declared inputs as the engine admits them (ADR-0083; `dryrun/admission.py`): each of
    its declared type and `validation`, present when required or defaulted."""
    properties: dict[str, ValueType] = {}
    required: set[str] = set()
    descriptions: dict[str, str] = {}
    for decl in inputs:
        name = decl.name
        if name is None or name in properties:
            continue
        properties[name] = _input_type(decl)
        if input_field(decl, "default") is not None or input_field(decl, "required") is True:
            required.add(name)
        description = input_field(decl, "description")
        if isinstance(description, str):
            descriptions[name] = description
    return ObjectType(tuple(properties.items()), frozenset(required), None,
                      descriptions=tuple(descriptions.items()))


def _input_type(decl: InputDecl) -> ValueType:
    validation = input_field(decl, "validation")
    rules = validation if isinstance(validation, dict) else {}
    shape: ValueType
    if decl.type in _TEXT_INPUTS:
        value_format = rules.get("format")
        shape = StringType(format=value_format if isinstance(value_format, str) else None)
    elif decl.type == "number":
        shape = NumberType(minimum=_number(rules.get("min")), maximum=_number(rules.get("max")))
    elif decl.type == "boolean":
        shape = BooleanType()
    else:
        return AnyValue()
    enum = rules.get("enum")
    if isinstance(enum, list) and enum and all(
            value is None or isinstance(value, str | int | float | bool) for value in enum):
        return restricted(Literals(tuple(enum)), shape)
    return shape


def input_field(decl: InputDecl, name: str) -> Any:
    """The plain value of an input declaration's field, or None."""
    entry = decl.mapping.get(name)
    return plain_value(entry.value) if entry is not None else None


def _number(value: object) -> float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None
