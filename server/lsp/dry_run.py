"""The last whole-workflow dry run as LSP diagnostics: its failures and the nodes it did not run."""

from __future__ import annotations

from lsprotocol import types

from server.lsp.diagnostics import SOURCE
from server.lsp.session import Session


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
