"""Run one node's expression with a sample scope: shared by `relavium-lsp run` and the
`relavium.runWithSampleScope` command, so both answer the same JSON.

The answer is the sandbox `eval` shape (`{"ok": true, "value": ...}` or `{"ok": false,
"error": {...}}`) plus `node`, `kind` and `scope`: `{"source": "explicit" | "sidecar" |
"synthesized", "path", "values", "notes"}` — `values` is the scope as evaluated, with denied
(secret) keys present and null, so no secret ever appears in the answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from analysis import AnalysisResult
from analysis.sample_scope import SampleScope, SampleScopeError, build_sample_scope, find_samples
from sandbox import Outcome, Scope, ScopeError, WorkerPool
from sandbox.transport import Kind

# How much of a value the window/logMessage detail shows.
LOG_VALUE_LIMIT = 20_000


class DryRunError(Exception):
    """The run could not start (broken YAML, unknown node, bad samples file); the message says
    what to do. Not a sandbox result."""


@dataclass
class DryRun:
    sample: SampleScope
    outcome: Outcome

    def to_json(self) -> dict[str, Any]:
        return {
            **self.outcome.to_json(),
            "node": self.sample.node,
            "kind": self.sample.kind,
            "scope": {
                "source": self.sample.origin,
                "path": self.sample.path,
                "values": self.sample.scope,
                "notes": self.sample.notes,
            },
        }

    @property
    def scope_label(self) -> str:
        origin = self.sample.origin
        return f"{origin} scope {self.sample.path}" if self.sample.path else f"{origin} scope"

    def summary(self) -> str:
        """One line: the value or the error's public message."""
        if self.outcome.ok:
            return f"{self.sample.node} → {_preview(self.outcome.to_text())}"
        return f"{self.sample.node} failed: {self.outcome.to_text()}"

    def detail(self) -> str:
        """Several lines for a log: the scope used, notes, and the full value or error."""
        lines = [f"run {self.sample.node} ({self.sample.kind}) with the {self.scope_label}"]
        lines.extend(f"note: {note}" for note in self.sample.notes)
        lines.append("scope: " + json.dumps(self.sample.scope, ensure_ascii=False))
        text = self.outcome.to_text()
        if len(text) > LOG_VALUE_LIMIT:
            # A result may be megabytes; the command's own answer carries it whole.
            text = text[:LOG_VALUE_LIMIT] + f"\n… ({len(text):,} characters; truncated in the log)"
        lines.append(("value: " if self.outcome.ok else "error: ") + text)
        return "\n".join(lines)


def _preview(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def prepare(
    result: AnalysisResult, path: str | None, node_id: str, explicit_scope: str | None
) -> tuple[SampleScope, Scope]:
    """The sample scope for the node; raises DryRunError when the run cannot start."""
    if result.workflow is None or result.graph is None:
        syntax = next((d for d in result.diagnostics if d.rule == "yaml-syntax"), None)
        where = f" (line {syntax.range.start.line + 1})" if syntax else ""
        raise DryRunError(f"the workflow does not parse{where}; fix the YAML first")
    try:
        samples = find_samples(path, explicit_scope)
        sample = build_sample_scope(result.workflow, result.graph, node_id, samples)
        return sample, Scope.from_json(sample.scope)
    except (SampleScopeError, ScopeError) as error:
        raise DryRunError(str(error)) from None


def evaluate(pool: WorkerPool, sample: SampleScope, scope: Scope) -> DryRun:
    """Blocking: call from a thread (the server) or the main thread (the CLI)."""
    kind: Kind = sample.kind  # type: ignore[assignment]
    return DryRun(sample, pool.run(sample.source, kind, scope))
