"""Analysis diagnostics as LSP diagnostics: client units, rule links, `data` for quick fixes."""

from __future__ import annotations

from lsprotocol import types

from analysis.diagnostics import Diagnostic, Severity
from analysis.rules import docs_url
from server.documents import Snapshot
from server.settings import Settings

SOURCE = "relavium-lsp"

def to_lsp_diagnostics(snapshot: Snapshot, settings: Settings) -> list[types.Diagnostic]:
    """The snapshot's diagnostics in client units, with the user's rule severities applied."""
    converted = []
    for diagnostic in snapshot.result.diagnostics:
        severity = settings.severity_for(diagnostic.rule, diagnostic.severity)
        if severity is not None:
            converted.append(to_lsp(snapshot, diagnostic, severity))
    return converted


def to_lsp(snapshot: Snapshot, diagnostic: Diagnostic, severity: Severity) -> types.Diagnostic:
    return types.Diagnostic(
        range=snapshot.lines.to_client_range(diagnostic.range),
        severity=types.DiagnosticSeverity(severity),
        code=diagnostic.rule,
        code_description=types.CodeDescription(href=docs_url(diagnostic.rule)),
        source=SOURCE,
        message=diagnostic.message,
        # `rule` is repeated in data so a quick fix never depends on the client echoing `code`
        data={"rule": diagnostic.rule, **(diagnostic.data or {})},
        related_information=[
            types.DiagnosticRelatedInformation(
                location=types.Location(
                    uri=snapshot.uri, range=snapshot.lines.to_client_range(related.range)
                ),
                message=related.message,
            )
            for related in diagnostic.related
        ]
        or None,
    )
