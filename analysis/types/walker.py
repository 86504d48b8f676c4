"""What the construct modules of inference (`operators`, `calls`) ask of the evaluation in
`analysis.types.infer`, so that they need not import it."""

from __future__ import annotations

from typing import Protocol

from analysis.schema.value_types import ValueType
from analysis.types.program import Arrow, Expr, Read, Spread
from analysis.types.program import Call as CallExpr


class Walker(Protocol):
    def type_of(self, expr: Expr) -> ValueType: ...

    def is_global(self, name: str) -> bool:
        """Whether `name` is the global (neither a root nor a parameter)."""
        ...

    def base(self, link: Read | CallExpr) -> tuple[ValueType, bool]:
        """The type `link` reads from, its own `?.` applied, and whether the chain may have
        been cut short before it."""
        ...

    def callback(self, arrow: Expr | Arrow | Spread,
                 parameters: list[ValueType]) -> ValueType | None:
        """What calling `arrow` with arguments of these types returns (None: not followed)."""
        ...
