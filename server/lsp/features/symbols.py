"""Document symbols: inputs, context, agents, the nodes grouped by type, and the edges — an
outline whose entries select the id (or name) they are declared with. The outline itself is
`analysis.ide.outline`'s; here it is placed in the client's text."""

from __future__ import annotations

from lsprotocol import types

from analysis.ide.outline import (
    CONTEXT_KEY,
    DECLARED_AGENT,
    DECLARED_INPUT,
    EDGE,
    SECTION,
    OutlineGroup,
    OutlineItem,
    outline,
)
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.serving import View, placed_answer

Symbol = types.DocumentSymbol
_KINDS = {
    SECTION: types.SymbolKind.Namespace,
    DECLARED_INPUT: types.SymbolKind.Variable,
    CONTEXT_KEY: types.SymbolKind.Constant,
    DECLARED_AGENT: types.SymbolKind.Class,
    EDGE: types.SymbolKind.Event,
    # nodes, by type
    "input": types.SymbolKind.Event,
    "agent": types.SymbolKind.Object,
    "human_gate": types.SymbolKind.Interface,
    "condition": types.SymbolKind.Boolean,
    "transform": types.SymbolKind.Function,
    "parallel": types.SymbolKind.Array,
    "merge": types.SymbolKind.Operator,
    "output": types.SymbolKind.File,
}


def _symbol(view: View, entry: OutlineItem | OutlineGroup) -> Symbol | None:
    """The entry in the live text; None when it was edited away (a group: all its children).
    A group's range covers its children and selects its first one."""
    kind = _KINDS[entry.kind]
    if isinstance(entry, OutlineItem):
        full = view.client_range(*entry.span)
        selection = view.client_range(*entry.selected)
        if full is None or selection is None:
            return None
        return Symbol(name=entry.name, kind=kind, range=full, selection_range=selection,
                      detail=entry.detail)
    kept = [symbol for child in entry.children if (symbol := _symbol(view, child)) is not None]
    if not kept:
        return None
    start = min((c.range.start for c in kept), key=lambda p: (p.line, p.character))
    end = max((c.range.end for c in kept), key=lambda p: (p.line, p.character))
    return Symbol(name=entry.name, kind=kind, range=types.Range(start=start, end=end),
                  selection_range=kept[0].selection_range, detail=entry.detail, children=kept)


def placed(view: View, groups: list[OutlineGroup]) -> list[Symbol]:
    """`analysis.ide.outline`'s groups as the client's document symbols."""
    return [symbol for group in groups if (symbol := _symbol(view, group)) is not None]


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded(empty=list)
    async def document_symbols(
        ls: RelaviumLanguageServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol]:
        return await placed_answer(ls, params.text_document.uri, outline, placed) or []
