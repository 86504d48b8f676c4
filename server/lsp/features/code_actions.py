"""Quick fixes for the diagnostics under the cursor, computed from the current analysis (so an
edit never applies to text the client no longer has) and driven by each diagnostic's `data`."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from analysis.diagnostics import Range
from server.lsp.diagnostics import to_lsp
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.quick_fixes import FixContext, fixes_for


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
        if snapshot is None or not snapshot.is_good:
            return []
        requested = snapshot.lines.from_client_range(params.range)
        actions: list[types.CodeAction] = []
        for diagnostic in snapshot.result.diagnostics:
            severity = ls.settings.severity_for(diagnostic.rule, diagnostic.severity)
            if severity is None or not _touches(diagnostic.range, requested):
                continue
            context = FixContext(
                snapshot,
                diagnostic,
                to_lsp(snapshot, diagnostic, severity),
                ls.client_capabilities,
            )
            actions.extend(fixes_for(context))
        return actions
