"""Go to definition, find references and rename for node ids (and definition/references for
`inputs.x`, `ctx.x` and `agent_ref`), over `analysis.navigation`'s symbol index."""

from __future__ import annotations

from typing import TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from analysis.navigation import Occurrence, SymbolIndex, symbol_index
from analysis.rename import RenameRefused, plan_rename, rename_target
from server.edits import workspace_edit
from server.handlers import guarded
from server.language_server import RelaviumLanguageServer
from server.serving import View, view_of

# LSP's RequestFailed: the client shows the message (e.g. in VS Code's rename box).
REQUEST_FAILED = -32803
T = TypeVar("T")


def _location(view: View, occurrence: Occurrence) -> types.Location | None:
    found = view.client_range(occurrence.start, occurrence.end)
    return types.Location(uri=view.snapshot.uri, range=found) if found is not None else None


async def _under_cursor(
    ls: RelaviumLanguageServer, uri: str, position: types.Position
) -> tuple[View, Occurrence] | None:
    view = await view_of(ls, uri)
    if view is None:
        return None
    occurrence = symbol_index(view.workflow).at(view.offset(position))
    return (view, occurrence) if occurrence is not None else None


async def _rename_target(
    ls: RelaviumLanguageServer, uri: str, position: types.Position
) -> tuple[View, SymbolIndex, Occurrence] | None:
    """The node id to rename (None for a document that is not an open workflow); edits must
    apply to exactly the text the client has."""
    view = await view_of(ls, uri)
    if view is None:
        return None
    if not view.current:
        raise RenameRefused("the YAML does not parse right now; fix the syntax error, then rename")
    index = symbol_index(view.workflow)
    return view, index, rename_target(index, view.offset(position))


def _answer(outcome: T | str) -> T:
    """A refusal (a message) becomes an error response the client shows to the user."""
    if isinstance(outcome, str):
        raise JsonRpcException(outcome, code=REQUEST_FAILED)
    return outcome


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_DEFINITION)
    @guarded(empty=list)
    async def definition(
        ls: RelaviumLanguageServer, params: types.DefinitionParams
    ) -> list[types.Location]:
        found = await _under_cursor(ls, params.text_document.uri, params.position)
        if found is None:
            return []
        view, occurrence = found
        target = symbol_index(view.workflow).definition(occurrence.kind, occurrence.name)
        location = _location(view, target) if target is not None else None
        return [location] if location is not None else []

    @ls.feature(types.TEXT_DOCUMENT_REFERENCES)
    @guarded(empty=list)
    async def references(
        ls: RelaviumLanguageServer, params: types.ReferenceParams
    ) -> list[types.Location]:
        found = await _under_cursor(ls, params.text_document.uri, params.position)
        if found is None:
            return []
        view, occurrence = found
        places = symbol_index(view.workflow).references(occurrence.kind, occurrence.name)
        if not params.context.include_declaration:
            places = [place for place in places if not place.is_definition]
        return [loc for place in places if (loc := _location(view, place)) is not None]

    @ls.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def prepare_rename(
        ls: RelaviumLanguageServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        return _answer(await _prepare(ls, params))

    @guarded()
    async def _prepare(
        ls: RelaviumLanguageServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | str | None:
        try:
            target = await _rename_target(ls, params.text_document.uri, params.position)
        except RenameRefused as refused:
            return str(refused)
        if target is None:
            return None
        view, _, occurrence = target
        found = view.client_range(occurrence.start, occurrence.end)
        if found is None:
            return None
        return types.PrepareRenamePlaceholder(range=found, placeholder=occurrence.name)

    @ls.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    async def rename(
        ls: RelaviumLanguageServer, params: types.RenameParams
    ) -> types.WorkspaceEdit | None:
        return _answer(await _rename(ls, params))

    @guarded()
    async def _rename(
        ls: RelaviumLanguageServer, params: types.RenameParams
    ) -> types.WorkspaceEdit | str | None:
        try:
            target = await _rename_target(ls, params.text_document.uri, params.position)
            if target is None:
                return None
            view, index, occurrence = target
            replacements = plan_rename(index, occurrence, params.new_name)
        except RenameRefused as refused:
            return str(refused)
        return workspace_edit(ls.client_capabilities, view.snapshot, replacements)
