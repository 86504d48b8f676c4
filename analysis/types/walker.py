"""What the construct modules of inference (`operators`, `literals`, `calls`) ask of the walk
in `analysis.types.infer`, so that they need not import it."""

from __future__ import annotations

from typing import Protocol

from tree_sitter import Node

from analysis.schema.value_types import ValueType


class Walker(Protocol):
    def type_of(self, node: Node) -> ValueType: ...

    def name(self, node: Node) -> str | None: ...

    def is_global(self, node: Node, name: str) -> bool: ...

    def chain(self, node: Node) -> tuple[ValueType, bool]: ...

    def base(self, obj: Node, link: Node) -> tuple[ValueType, bool]: ...

    def callback(self, node: Node, parameters: list[ValueType]) -> ValueType | None: ...

    def spread_items(self, spread: Node) -> ValueType | None: ...

    def source_text(self, node: Node) -> str: ...


def children(node: Node) -> list[Node]:
    """A node's named children, comments left out."""
    return [child for child in node.named_children if child.type != "comment"]


def operator_of(node: Node) -> str | None:
    operator = node.child_by_field_name("operator")
    return operator.type if operator is not None else None
