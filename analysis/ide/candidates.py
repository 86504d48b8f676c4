"""Completion candidates: what the editor shows, in live-text offsets (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class CandidateKind(StrEnum):
    NODE = "node"
    HANDLE = "handle"
    INPUT = "input"
    CONTEXT = "context"
    AGENT = "agent"
    BINDING = "binding"
    GLOBAL = "global"
    MEMBER = "member"
    VALUE = "value"
    KEY = "key"
    SNIPPET = "snippet"
    MODEL = "model"


@dataclass(frozen=True)
class Candidate:
    label: str
    kind: CandidateKind
    detail: str
    replace: tuple[int, int]  # live-text offsets the insertion replaces
    documentation: str = ""
    insert: str | None = None  # the text to insert when it is not the label
    filter: str | None = None  # what the editor matches the typed text against
    rank: int = 0  # candidates sort by (rank, authored order): secrets get 1

    @property
    def text(self) -> str:
        return self.insert if self.insert is not None else self.label
