"""Interim types of reads, until `analysis.types.dataflow` lands: the declared inputs and the
`output_schema` a node is held to (`node_output_type`), everything else unknown. Same surface as
the dataflow's `Dataflow` (`output_of`, `roots_for`, `read_type`) so callers do not change."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from analysis.document.model import Workflow
from analysis.document.yaml_nodes import plain_value
from analysis.schema.output_schema import node_output_type
from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    BooleanType,
    NoValue,
    NullType,
    NumberType,
    ObjectType,
    StringType,
    UndefinedType,
    Union,
    ValueType,
    union_of,
)


@dataclass(frozen=True)
class TypedValue:
    type: ValueType
    origin: str


_INPUT_TYPES: dict[str, ValueType] = {
    "string": StringType(), "secret": StringType(), "number": NumberType(),
    "integer": NumberType(integer=True), "boolean": BooleanType(), "array": ArrayType(),
    "object": ObjectType(),
}


def member_type(base: ValueType, key: str | int) -> ValueType:
    if isinstance(base, Union):
        return union_of([member_type(option, key) for option in base.options])
    if isinstance(base, NullType | UndefinedType):
        return NoValue()
    if isinstance(base, ObjectType) and isinstance(key, str):
        found = base.property(key)
        if found is None:
            return UndefinedType()
        return found if key in base.required else union_of([found, UndefinedType()])
    if isinstance(base, ArrayType):
        if key == "length":
            return NumberType(integer=True)
        if isinstance(key, int):
            return union_of([base.items, UndefinedType()])
    return AnyValue()


class Dataflow:
    def __init__(self, workflow: Workflow) -> None:
        self.workflow = workflow
        properties, required, descriptions = [], set(), []
        for decl in workflow.inputs:
            if decl.name is None:
                continue
            values = plain_value(decl.mapping)
            properties.append((decl.name, _INPUT_TYPES.get(decl.type or "", AnyValue())))
            if values.get("required") is True or "default" in values:
                required.add(decl.name)
            if isinstance(values.get("description"), str):
                descriptions.append((decl.name, values["description"]))
        self.inputs = ObjectType(tuple(properties), frozenset(required), None,
                                 descriptions=tuple(descriptions))

    def output_of(self, node_id: str) -> TypedValue | None:
        node = self.workflow.node(node_id)
        if node is None or node.type == "condition":
            return None
        declared = node_output_type(self.workflow, node)
        if declared is not None:
            return TypedValue(declared, f"{node_id}'s output_schema")
        return TypedValue(StringType() if node.type == "agent" else AnyValue(),
                          f"{node_id}'s {node.type} output")

    def roots_for(self, node_id: str) -> Mapping[str, ValueType]:
        return {"inputs": self.inputs}

    def read_type(self, node_id: str, root: str, path: Sequence[str | int]) -> TypedValue:
        if root == "run" and len(path) >= 2 and path[0] == "outputs":
            output = self.output_of(str(path[1]))
            if output is None:
                return TypedValue(UndefinedType(), f"{path[1]} stores no output")
            value_type, origin, rest = output.type, output.origin, path[2:]
        elif root == "inputs":
            value_type, origin, rest = self.inputs, "the declared inputs", path
        else:
            return TypedValue(AnyValue(), "")
        for key in rest:
            value_type = member_type(value_type, key)
        return TypedValue(value_type, origin)


def dataflow_of(workflow: Workflow) -> Dataflow:
    return Dataflow(workflow)
