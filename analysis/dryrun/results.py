"""What a dry run answers: each node's record (status, value, error, reason, time) and the
whole run's, whose `to_json()` is the JSON of `relavium-lsp run --format json`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from analysis.document.model import NodeDef
from analysis.dryrun.scope import Upstream
from analysis.dryrun.values import UNDEFINED
from sandbox import Outcome


@dataclass
class NodeRun:
    node: NodeDef
    id: str
    type: str
    status: str  # ran | skipped | pinned | synthesized | failed | not-run
    value: Any = UNDEFINED
    error: dict[str, Any] | None = None
    reason: str | None = None
    ms: float = 0.0
    outcome: Outcome | None = None  # the sandbox's answer, for callers that show more of it
    # on a failure that read a synthesized output: which ancestor and how to pin it
    hint: str | None = None
    # where a failure sits in the document (offsets), when narrower than the failing field
    where: tuple[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": self.id, "type": self.type, "status": self.status}
        if self.value is not UNDEFINED:
            entry["value"] = self.value
        if self.error is not None:
            entry["error"] = self.error
        if self.reason is not None:
            entry["reason"] = self.reason
        entry["ms"] = round(self.ms, 3)
        return entry


@dataclass
class WorkflowRun:
    nodes: list[NodeRun]
    notes: list[str] = field(default_factory=list)
    # What each node stored (ids absent when nothing was stored), for `run --node`.
    outputs: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)
    secret_inputs: list[str] = field(default_factory=list)
    ctx: dict[str, Any] = field(default_factory=dict)
    secret_ctx: list[str] = field(default_factory=list)
    # the note on the samples' outputs this run no longer matches (also in `notes`)
    stale: str | None = None
    # why the run failed when no node did (the engine's run-level `turn_limit`)
    error: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and all(node.status != "failed" for node in self.nodes)

    def to_json(self) -> dict[str, Any]:
        answer: dict[str, Any] = {"ok": self.ok}
        if self.error is not None:
            answer["error"] = self.error
        answer["nodes"] = [node.to_json() for node in self.nodes]
        answer["notes"] = self.notes
        return answer

    def as_upstream(self) -> Upstream:
        """What this run of a node's ancestors stored, and what became of those that stored
        nothing: for `run --node`, which runs the node after them."""
        notes = [
            f"ancestor `{entry.id}` {entry.status}"
            + (f" ({entry.reason})" if entry.reason and entry.status != "ran" else "")
            + "; its output is absent"
            for entry in self.nodes
            if entry.status in ("failed", "skipped", "not-run")
        ]
        if self.stale is not None:
            notes.append(self.stale)
        return Upstream(self.outputs, notes)

    def node(self, node_id: str) -> NodeRun | None:
        return next((entry for entry in self.nodes if entry.id == node_id), None)
