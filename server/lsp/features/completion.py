"""Completion: `analysis.ide.completion` candidates for the live text, as LSP items whose edits
replace exactly the typed part (served from the last good model while the YAML is half-typed)."""

from __future__ import annotations

from lsprotocol import types

from analysis.ide.candidates import Candidate, CandidateKind
from analysis.ide.completion import complete
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.serving import View, agent_view_of, view_of

TRIGGER_CHARACTERS = [".", "[", '"', "'", ":", " ", "{"]

_KINDS = {
    CandidateKind.NODE: types.CompletionItemKind.Reference,
    CandidateKind.HANDLE: types.CompletionItemKind.EnumMember,
    CandidateKind.INPUT: types.CompletionItemKind.Variable,
    CandidateKind.CONTEXT: types.CompletionItemKind.Constant,
    CandidateKind.AGENT: types.CompletionItemKind.Reference,
    CandidateKind.BINDING: types.CompletionItemKind.Variable,
    CandidateKind.GLOBAL: types.CompletionItemKind.Class,
    CandidateKind.MEMBER: types.CompletionItemKind.Method,
    CandidateKind.VALUE: types.CompletionItemKind.EnumMember,
    CandidateKind.KEY: types.CompletionItemKind.Property,
    CandidateKind.SNIPPET: types.CompletionItemKind.Keyword,
    CandidateKind.MODEL: types.CompletionItemKind.Value,
}


def _item(view: View, candidate: Candidate, order: int) -> types.CompletionItem:
    start, end = candidate.replace
    return types.CompletionItem(
        label=candidate.label,
        kind=_KINDS[candidate.kind],
        detail=candidate.detail,
        documentation=(
            types.MarkupContent(kind=types.MarkupKind.Markdown, value=candidate.documentation)
            if candidate.documentation
            else None
        ),
        sort_text=f"{candidate.rank}{order:05d}",
        filter_text=candidate.filter,
        text_edit=types.TextEdit(
            range=types.Range(start=view.client_position(start), end=view.client_position(end)),
            new_text=candidate.text,
        ),
    )


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS, resolve_provider=False),
    )
    @guarded(empty=lambda: types.CompletionList(is_incomplete=False, items=[]))
    async def completion(
        ls: RelaviumLanguageServer, params: types.CompletionParams
    ) -> types.CompletionList:
        view = (await view_of(ls, params.text_document.uri)
                or await agent_view_of(ls, params.text_document.uri))
        if view is None:
            return types.CompletionList(is_incomplete=False, items=[])
        resolution = await ls.agent_resolution(params.text_document.uri, view.result.workflow)
        candidates = complete(view.result, view.live, view.live_offset(params.position),
                              resolution)
        return types.CompletionList(
            is_incomplete=False,
            items=[_item(view, candidate, order) for order, candidate in enumerate(candidates)],
        )
