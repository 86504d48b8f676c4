"""The diagnostic record every check produces and every consumer (server, CLI) reads, with the
fixes a check knows for it (ruff's model: the fix travels with the finding, so the editor's quick
fixes and the command line share one answer).

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
class Edit:
    """Replace the text of `range` (in the analysed text) with `new_text`."""

    range: Range
    new_text: str


@dataclass(frozen=True)
class NewFile:
    """A file a fix creates: `name` holding `text` in `base` (an existing folder, absolute)
    and its sub-folders `folders`, made when missing."""

    base: str
    folders: tuple[str, ...]
    name: str
    text: str


@dataclass(frozen=True)
class Fix:
    """One way to resolve a diagnostic. `safe`: the edits keep the workflow's meaning but for the
    mistake they correct, so a tool may apply them unasked (`--fix`); an unsafe fix is a guess
    (a closest name among several) offered for the author to choose. A fix that `creates` files
    is the editor's alone: `check --fix` writes the files it checks and never creates one."""

    title: str
    edits: tuple[Edit, ...]
    safe: bool
    creates: tuple[NewFile, ...] = ()


@dataclass(frozen=True)
class Diagnostic:
    range: Range
    severity: Severity
    rule: str
    message: str
    # What `check --format json` reports beside the message (a public contract, not a fix's).
    data: dict[str, Any] | None = None
    related: tuple[Related, ...] = field(default=())
    fixes: tuple[Fix, ...] = field(default=())
