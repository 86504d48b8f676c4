"""Signature help: `analysis.ide.branch_help` for `branches[` in a merge_fn, as LSP signatures
(one per branch index, the typed index active), served from the live text like completion."""

from __future__ import annotations

from lsprotocol import types

from analysis.ide.branch_help import branch_help
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.serving import view_of

TRIGGER_CHARACTERS = ["["]


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(
        types.TEXT_DOCUMENT_SIGNATURE_HELP,
        types.SignatureHelpOptions(trigger_characters=TRIGGER_CHARACTERS),
    )
    @guarded()
    async def signature_help(
        ls: RelaviumLanguageServer, params: types.SignatureHelpParams
    ) -> types.SignatureHelp | None:
        view = await view_of(ls, params.text_document.uri)
        if view is None:
            return None
        found = branch_help(view.result, view.live, view.live_offset(params.position))
        if found is None:
            return None
        return types.SignatureHelp(
            signatures=[
                types.SignatureInformation(
                    label=signature.label,
                    documentation=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                      value=signature.documentation),
                )
                for signature in found.signatures
            ],
            active_signature=found.active,
        )
