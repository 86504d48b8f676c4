"""Analysis diagnostics as LSP diagnostics: client units, rule links, the rule's `data`."""

from __future__ import annotations

from lsprotocol import types

from analysis.checks.registry import DOCS_URL, docs_url
from analysis.diagnostics import Diagnostic, Severity
from server.lsp.documents import Snapshot
from server.lsp.settings import Settings

SOURCE = "relavium-lsp"
TOO_MANY_PROBLEMS = "too-many-problems"
SERVER_DOCS = DOCS_URL.rsplit("/", 1)[0] + "/server.md#diagnostics"
# At most this many diagnostics of a document reach the client (the analysis process sends no more
# of one rule's): converting 128,000 took the event loop 8 s, and their JSON was tens of megabytes.
MAX_DIAGNOSTICS = 1000


def to_lsp_diagnostics(snapshot: Snapshot, settings: Settings) -> list[types.Diagnostic]:
    """The snapshot's diagnostics in client units, with the user's rule severities applied: the
    first `MAX_DIAGNOSTICS` by position, then one `too-many-problems` warning counting the
    rest."""
    converted: list[types.Diagnostic] = []
    left_out = sum(
        count for rule, count in snapshot.omitted.items()
        if settings.severity_for(rule, Severity.ERROR) is not None
    )
    for diagnostic in snapshot.result.diagnostics:
        severity = settings.severity_for(diagnostic.rule, diagnostic.severity)
        if severity is None:
            continue
        if len(converted) < MAX_DIAGNOSTICS:
            converted.append(to_lsp(snapshot, diagnostic, severity))
        else:
            left_out += 1
    if left_out:
        converted.append(types.Diagnostic(
            range=types.Range(start=types.Position(0, 0), end=types.Position(0, 0)),
            severity=types.DiagnosticSeverity.Warning,
            code=TOO_MANY_PROBLEMS,
            code_description=types.CodeDescription(href=SERVER_DOCS),
            source=SOURCE,
            message=f"{left_out:,} more problems are not shown (at most {MAX_DIAGNOSTICS:,} per "
            "file); fix the ones shown, or turn off the rules that report them "
            "(relavium.rules)",
            data={"rule": TOO_MANY_PROBLEMS},
        ))
    return converted


def to_lsp(snapshot: Snapshot, diagnostic: Diagnostic, severity: Severity) -> types.Diagnostic:
    return types.Diagnostic(
        range=snapshot.lines.to_client_range(diagnostic.range),
        severity=types.DiagnosticSeverity(severity),
        code=diagnostic.rule,
        code_description=types.CodeDescription(href=docs_url(diagnostic.rule)),
        source=SOURCE,
        message=diagnostic.message,
        # The rule's facts as `check --format json` reports them, with the rule id beside them
        # (what clients have always been sent; the server's quick fixes no longer read it back)
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
