"""Quick fixes for the diagnostics under the cursor: each diagnostic's own fixes (built by the
rule that found it), then the "Ignore …" suppression comments every diagnostic gets, converted
to code actions on the current analysis (so an edit never applies to text the client no longer
has). A fix that creates files is the `relavium.createFiles` command (features/create_files.py):
the server writes them, inside the workspace only."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from analysis.checks.suppression import suppression_fixes
from analysis.diagnostics import Range
from analysis.project.kinds import FileKind
from server.lsp.diagnostics import to_lsp
from server.lsp.edits import text_edits, workspace_edit
from server.lsp.features.create_files import command_for
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer


def _touches(a: Range, b: Range) -> bool:
    return a.start <= b.end and b.start <= a.end


def _wants_quick_fixes(only: Sequence[types.CodeActionKind | str] | None) -> bool:
    return not only or any(
        types.CodeActionKind.QuickFix.value.startswith(str(getattr(kind, "value", kind)))
        for kind in only
    )


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    @guarded(empty=list)
    async def code_actions(
        ls: RelaviumLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        if not _wants_quick_fixes(params.context.only):
            return []
        snapshot = await ls.fresh_snapshot(params.text_document.uri)
        # An agent file has no workflow model but its rules' fixes ("did you mean") hold; it
        # gets no "Ignore …": suppression comments are read in workflow files only.
        if snapshot is None or not (snapshot.is_good or (
                snapshot.has_model and snapshot.result.kind is FileKind.AGENT)):
            return []
        result = snapshot.result
        requested = snapshot.lines.from_client_range(params.range)
        actions: list[types.CodeAction] = []
        for diagnostic in result.diagnostics:
            severity = ls.settings.severity_for(diagnostic.rule, diagnostic.severity)
            if severity is None or not _touches(diagnostic.range, requested):
                continue
            lsp_diagnostic = to_lsp(snapshot, diagnostic, severity)
            ignoring = suppression_fixes(
                diagnostic, result.source, result.document, result.workflow
            ) if result.workflow is not None else []
            for index, fix in enumerate([*diagnostic.fixes, *ignoring]):
                actions.append(
                    types.CodeAction(
                        title=fix.title,
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[lsp_diagnostic],
                        # the rule's first answer; never a suppression
                        is_preferred=(index == 0 and bool(diagnostic.fixes)) or None,
                        edit=workspace_edit(
                            ls.client_capabilities, snapshot, text_edits(snapshot, fix.edits)
                        ) if fix.edits or not fix.creates else None,
                        # the server makes the files a fix creates (features/create_files.py)
                        command=command_for(snapshot.uri, fix) if fix.creates else None,
                    )
                )
        return actions
