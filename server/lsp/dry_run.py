"""Dry runs with a sample scope, shared by `relavium-lsp run` and the LSP commands so both answer
the same JSON: one node's expression (`run --node`, `relavium.runWithSampleScope`), after its
ancestors ran as the engine would run them, or the whole workflow (`run`,
`relavium.dryRunWorkflow`; see `analysis.dryrun.workflow_run`).

The answer is the sandbox `eval` shape (`{"ok": true, "value": ...}` or `{"ok": false,
"error": {...}}`) plus `node`, `kind` and `scope`: `{"source": "explicit" | "sidecar" |
"synthesized", "path", "values", "notes"}` — `values` is the scope as evaluated, with denied
(secret) keys present and null, so no secret ever appears in the answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from analysis.checks.analyze import AnalysisResult
from analysis.diagnostics import Severity
from analysis.dryrun.sample_scope import (
    Samples,
    SampleScope,
    SampleScopeError,
    build_sample_scope,
    find_samples,
)
from analysis.dryrun.workflow_run import (
    WorkflowRun,
    compiler_line,
    error_json,
    run_workflow,
    synthesized_cause,
    value_text,
)
from sandbox import Outcome, Scope, ScopeError, WorkerPool
from sandbox.transport import Kind
from server.lsp.diagnostics import SOURCE
from server.lsp.session import Session

# How much of a value the window/logMessage detail shows.
LOG_VALUE_LIMIT = 20_000


class DryRunError(Exception):
    """The run could not start (broken YAML, unknown node, bad samples file); the message says
    what to do. Not a sandbox result."""


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
            return f"{self.sample.node} → {_preview(value_text(self.outcome.value))}"
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
        lines.append("scope: " + json.dumps(self.sample.scope, ensure_ascii=False))
        text = self.outcome.to_text()
        if len(text) > LOG_VALUE_LIMIT:
            # A result may be megabytes; the command's own answer carries it whole.
            text = text[:LOG_VALUE_LIMIT] + f"\n… ({len(text):,} characters; truncated in the log)"
        lines.append(("value: " if self.outcome.ok else "error: ") + text)
        lines.extend(self.compiler_lines())
        if not self.outcome.ok and self.sample.failure_hint:
            lines.append(f"note: {self.sample.failure_hint}")
        return "\n".join(lines)


def _preview(text: str, limit: int = 120) -> str:
    """Clipped, whitespace kept as it is (compact JSON is one line already)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def load(
    result: AnalysisResult, path: str | None, explicit_scope: str | None
) -> tuple[AnalysisResult, Samples]:
    """The samples for a run; raises DryRunError when the run cannot start."""
    if result.workflow is None or result.graph is None:
        syntax = next((d for d in result.diagnostics if d.rule == "yaml-syntax"), None)
        where = f" (line {syntax.range.start.line + 1})" if syntax else ""
        raise DryRunError(f"the workflow does not parse{where}; fix the YAML first")
    try:
        return result, find_samples(path, explicit_scope)
    except SampleScopeError as error:
        raise DryRunError(str(error)) from None


def pool_evaluator(pool: WorkerPool) -> Callable[[str, str, Scope], Outcome]:
    def evaluate(source: str, kind: str, scope: Scope) -> Outcome:
        # a dry run shows the author their own error (issue 13 §1): the detail is opted into
        return pool.run(source, kind, scope, with_detail=True)  # type: ignore[arg-type]

    return evaluate


def prepare(
    result: AnalysisResult,
    path: str | None,
    node_id: str,
    explicit_scope: str | None,
    pool: WorkerPool,
) -> tuple[SampleScope, Scope]:
    """The node's sample scope after its ancestors ran (blocking: they evaluate in `pool`);
    raises DryRunError when the run cannot start."""
    result, samples = load(result, path, explicit_scope)
    assert result.workflow is not None and result.graph is not None
    try:
        alone = build_sample_scope(result.workflow, result.graph, node_id, samples)
        if result.graph.cycle is not None:
            alone.notes.append("the workflow has a dependency cycle; its ancestors were not run")
            return alone, Scope.from_json(alone.scope)
        ancestors = set(result.graph.ancestors(node_id)) - {node_id}
        upstream = run_workflow(
            result.workflow, result.graph, pool_evaluator(pool), samples, members=ancestors
        )
        assert upstream.upstream_for is not None
        sample = build_sample_scope(
            result.workflow, result.graph, node_id, samples, upstream.upstream_for(node_id)
        )
        sample.failure_hint = synthesized_cause(
            result.graph, upstream.nodes, result.workflow.nodes_by_id[node_id], node_id
        )
        return sample, Scope.from_json(sample.scope)
    except (SampleScopeError, ScopeError) as error:
        raise DryRunError(str(error)) from None


def evaluate(
    pool: WorkerPool, sample: SampleScope, scope: Scope, path: str | None = None
) -> DryRun:
    """Blocking: call from a thread (the server) or the main thread (the CLI)."""
    kind: Kind = sample.kind  # type: ignore[assignment]
    return DryRun(sample, pool.run(sample.source, kind, scope, with_detail=True), path)


def run_whole(
    result: AnalysisResult,
    path: str | None,
    explicit_scope: str | None,
    pool: WorkerPool,
    cancelled: Callable[[], bool] = lambda: False,
) -> WorkflowRun:
    """The whole-workflow dry run (blocking); raises DryRunError when it cannot start."""
    result, samples = load(result, path, explicit_scope)
    assert result.workflow is not None and result.graph is not None
    if result.graph.cycle is not None:
        raise DryRunError(
            "the workflow has a dependency cycle (" + " → ".join(result.graph.cycle)
            + "); the engine refuses to run it"
        )
    try:
        run = run_workflow(
            result.workflow, result.graph, pool_evaluator(pool), samples, cancelled=cancelled
        )
    except ScopeError as error:
        raise DryRunError(str(error)) from None
    errors = sum(1 for d in result.diagnostics if d.severity == Severity.ERROR)
    if errors:
        run.notes.insert(0, (
            f"the workflow has {errors} error(s) (see `relavium-lsp check`): the engine would "
            "refuse to load it; this shows what its deterministic part would do anyway"
        ))
    return run


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
        parts.append(_preview(value_text(entry["value"]), limit))
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
    verdict = f"failed at {failed}" if failed else "ok"
    return f"dry run {verdict}: {tally}"


def dry_run_diagnostics(state: Session | None, version: int) -> list[types.Diagnostic]:
    """The last dry run's failures (errors at the failing field) and skipped / not-run nodes
    (hints, dimmed), for the document version it ran on only."""
    run = state.current_dry_run if state is not None else None
    if run is None or run.version != version:
        return []
    diagnostics = []
    for note in run.annotations:
        if note.problem is None:
            continue
        failed = note.problem == "failed"
        diagnostics.append(types.Diagnostic(
            range=run.snapshot.lines.to_client_range(note.range),
            severity=types.DiagnosticSeverity.Error if failed else types.DiagnosticSeverity.Hint,
            code="dry-run",
            source=SOURCE,
            message=note.message,
            tags=None if failed else [types.DiagnosticTag.Unnecessary],
            data={"node": note.node},
        ))
    return diagnostics
