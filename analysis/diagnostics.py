"""The diagnostic record every check produces and every consumer (server, CLI) reads.

Positions are 0-based lines and columns in Unicode code points of the document text (Python
`str` indices); consumers convert columns to the client's encoding (UTF-16 by default).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any


class Severity(IntEnum):
    """Same numbering as LSP's DiagnosticSeverity, so the server maps by value."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, order=True)
class Position:
    line: int
    character: int


@dataclass(frozen=True)
class Range:
    start: Position
    end: Position


@dataclass(frozen=True)
class Related:
    """A second place explaining a diagnostic (a cycle member, the node that is not an ancestor)."""

    range: Range
    message: str


@dataclass(frozen=True)
class Diagnostic:
    range: Range
    severity: Severity
    rule: str
    message: str
    data: dict[str, Any] | None = None
    related: tuple[Related, ...] = field(default=())
