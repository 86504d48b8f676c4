"""What a dry run shows its user: one node's answer (`run --node`, `relavium.runWithSampleScope`:
the sandbox `eval` JSON plus `node`, `kind` and `scope`, a one-line summary, a bounded log
detail) and a whole run's lines (`run`, `relavium.dryRunWorkflow`).

The one-node answer is the sandbox `eval` shape (`{"ok": true, "value": ...}` or `{"ok": false,
"error": {...}}`) plus `node`, `kind` and `scope`: `{"source": "explicit" | "sidecar" |
"synthesized", "path", "values", "notes"}` — `values` is the scope as evaluated, with denied
(secret) keys present and null, so no secret ever appears in the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from analysis.diagnostics import Position, Range
from analysis.document.source import SourceText
from analysis.dryrun.failures import compiler_line, detail_span, error_json
from analysis.dryrun.results import NodeRun, WorkflowRun
from analysis.dryrun.scope import SampleScope
from analysis.dryrun.values import UNDEFINED, value_text
from sandbox import Outcome

# How much of a value the window/logMessage detail shows.
LOG_VALUE_LIMIT = 20_000


@dataclass
class DryRun:
    sample: SampleScope
    outcome: Outcome
    sample_path: str | None = None  # the workflow file, for compiler-style lines

    def to_json(self) -> dict[str, Any]:
        notes = self.sample.notes
        if not self.outcome.ok and self.sample.failure_hint:
            notes = [*notes, self.sample.failure_hint]
        answer = self.outcome.to_json()
        field = self.sample.field
        if not self.outcome.ok and field is not None:
            answer["error"] = error_json(self.outcome, field, field.source)
        return {
            **answer,
            "node": self.sample.node,
            "kind": self.sample.kind,
            "scope": {
                "source": self.sample.origin,
                "path": self.sample.path,
                "values": self.sample.scope,
                "notes": notes,
            },
        }

    def compiler_lines(self) -> list[str]:
        """On a failure with the author's detail: `file:line:col: Class: message` and a caret."""
        field = self.sample.field
        if self.outcome.ok or field is None:
            return []
        return compiler_line(self.sample_path or "<workflow>", self.outcome, field, field.source)

    @property
    def scope_label(self) -> str:
        origin = self.sample.origin
        return f"{origin} scope {self.sample.path}" if self.sample.path else f"{origin} scope"

    def summary(self) -> str:
        """One line: the value or the error's public message."""
        if self.outcome.ok:
            return f"{self.sample.node} → {value_text(self.outcome.value, 120)}"
        detail, error = self.outcome.detail, self.outcome.error
        said = self.outcome.to_text()
        if detail is not None and error is not None:
            said = f"{detail.cls}: {detail.message} ({error.reason})"
        return f"{self.sample.node} failed: {_preview(said, 300)}" + (
            f" ({self.sample.failure_hint})" if self.sample.failure_hint else ""
        )

    def detail(self) -> str:
        """Several lines for a log: the scope used, notes, and the full value or error."""
        lines = [f"run {self.sample.node} ({self.sample.kind}) with the {self.scope_label}"]
        lines.extend(f"note: {note}" for note in self.sample.notes)
        # A scope or a result may be megabytes; the command's own answer carries them whole.
        lines.append("scope: " + value_text(self.sample.scope, LOG_VALUE_LIMIT))
        text = self.outcome.to_text()
        if len(text) > LOG_VALUE_LIMIT:
            text = text[:LOG_VALUE_LIMIT] + f"\n… ({len(text):,} characters; truncated in the log)"
        lines.append(("value: " if self.outcome.ok else "error: ") + text)
        lines.extend(self.compiler_lines())
        if not self.outcome.ok and self.sample.failure_hint:
            lines.append(f"note: {self.sample.failure_hint}")
        return "\n".join(lines)


def _preview(text: str, limit: int = 120) -> str:
    """Clipped, whitespace kept as it is (compact JSON is one line already)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def failure_lines(run: WorkflowRun, path: str) -> dict[str, list[str]]:
    """Compiler-style lines for each failed node that has the author's detail, by node id."""
    lines = {}
    for node in run.nodes:
        field = node.node.expression
        if node.status == "failed" and node.outcome is not None and field is not None:
            shown = compiler_line(path, node.outcome, field, field.source)
            if shown:
                lines[node.id] = shown
    return lines


def node_line(entry: dict[str, Any], limit: int = 120) -> str:
    """One line of a whole run: `id (type) status: value | reason | error`."""
    head = f"{entry['id']} ({entry['type']}) {entry['status']}"
    parts: list[str] = []
    if "value" in entry:
        parts.append(value_text(entry["value"], limit))
    if "error" in entry:
        error = entry["error"]
        reason = f" ({error['reason']})" if "reason" in error else ""
        parts.append(f"{error['code']}{reason}: {error['message']}")
    if "reason" in entry:
        parts.append(entry["reason"])
    return head + (": " + " — ".join(parts) if parts else "")


def summary_of(run: WorkflowRun) -> str:
    counts: dict[str, int] = {}
    for node in run.nodes:
        counts[node.status] = counts.get(node.status, 0) + 1
    tally = ", ".join(f"{count} {status}" for status, count in counts.items())
    failed = next((node.id for node in run.nodes if node.status == "failed"), None)
    verdict = (f"failed at {failed}" if failed else
               f"failed: {run.error['message']}" if run.error is not None else "ok")
    return f"dry run {verdict}: {tally}"


HINT_LIMIT = 60


@dataclass(frozen=True)
class Annotation:
    """One node's result placed in the document: `label` (clipped) after `at` (the end of the
    node's id), the full value as `tooltip`; `problem` is "failed" (at `range`, the failing
    field) or "dimmed" (skipped / not run: the node's whole entry), else None."""

    node: str
    at: Position
    label: str | None
    tooltip: str | None
    problem: str | None
    range: Range
    message: str


def placements(run: WorkflowRun, source: SourceText) -> list[Annotation]:
    result: list[Annotation] = []
    for entry in run.nodes:
        node = entry.node
        if node.id_ref is None:
            continue
        id_end = source.position(node.id_ref.scalar.end)
        label = tooltip = None
        if entry.value is not UNDEFINED:
            tooltip = value_text(entry.value, LOG_VALUE_LIMIT)
            pin = "📌 " if entry.status == "pinned" else ""
            label = f"{pin}= {value_text(entry.value, HINT_LIMIT)}"
        elif entry.type == "condition" and entry.reason is not None:
            label = tooltip = f"→ {entry.reason}"
        if entry.status == "failed":
            span = _failing_span(entry)
            message = f"dry run: `{entry.id}` failed: " + _error_text(entry.error)
            detail = entry.outcome.detail if entry.outcome is not None else None
            if detail is not None:
                message = f"dry run: `{entry.id}` failed: {detail.cls}: {detail.message}"
            if entry.hint is not None:
                message += f"\n{entry.hint}"
            result.append(Annotation(entry.id, id_end, label, tooltip, "failed",
                                     source.range(*span), message))
        elif entry.status in ("skipped", "not-run"):
            message = f"dry run: `{entry.id}` {entry.status}: {entry.reason}"
            result.append(Annotation(entry.id, id_end, f"({entry.status})", message, "dimmed",
                                     source.range(*node.mapping.span), message))
        else:
            result.append(Annotation(entry.id, id_end, label, tooltip, None,
                                     source.range(*node.id_ref.scalar.span), ""))
    return result


def _failing_span(entry: NodeRun) -> tuple[int, int]:
    node = entry.node
    if entry.where is not None:
        return entry.where
    if entry.outcome is not None and node.expression is not None:
        detail = entry.outcome.detail
        token = detail_span(node.expression, detail) if detail is not None else None
        return token or node.expression.scalar.span
    assert node.id_ref is not None
    return node.id_ref.scalar.span


def _error_text(error: dict[str, Any] | None) -> str:
    if error is None:
        return "unknown error"
    reason = f" ({error['reason']})" if "reason" in error else ""
    return f"{error.get('code')}{reason}: {error.get('message')}"
