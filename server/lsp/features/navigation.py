"""Go to definition, find references and rename for node ids (and definition/references for
`inputs.x`, `ctx.x`, `agent_ref` and an edge's `cond:handle`), over `analysis.ide.navigation`'s
symbol index. An `agent_ref` to an agent file's agent goes to that file's `id` (the workspace
agent index, `RelaviumLanguageServer.agent_resolution`), and its references are that `id` and
the `agent_ref`s of every open workflow resolving to the same file."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TypeVar

from lsprotocol import types
from pygls.uris import from_fs_path

from analysis.ide.navigation import Occurrence, SymbolIndex, SymbolKind, symbol_index
from analysis.ide.rename import RenameRefused, plan_rename, rename_target
from analysis.project.workspace import AgentEntry
from server.lsp.edits import offset_edits, workspace_edit
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.positions import LineIndex
from server.lsp.protocol import RequestRefused
from server.lsp.serving import View, view_of

T = TypeVar("T")
P = TypeVar("P")


def _location(view: View, occurrence: Occurrence) -> types.Location | None:
    found = view.client_range(occurrence.start, occurrence.end)
    return types.Location(uri=view.snapshot.uri, range=found) if found is not None else None


async def _under_cursor(
    ls: RelaviumLanguageServer, uri: str, position: types.Position
) -> tuple[View, Occurrence] | None:
    view = await view_of(ls, uri)
    if view is None:
        return None
    offset = view.offset(position)
    occurrence = symbol_index(view.workflow).at(offset) if offset is not None else None
    if occurrence is None or view.client_range(occurrence.start, occurrence.end) is None:
        return None  # nothing there, or a name the user is editing
    return view, occurrence


async def _file_agent(ls: RelaviumLanguageServer, view: View, name: str) -> AgentEntry | None:
    """The agent file's agent `agent_ref: name` resolves to in this workflow, if it is one."""
    resolution = await ls.agent_resolution(view.snapshot.uri, view.workflow)
    agent = resolution.agent(name) if resolution is not None else None
    return agent if isinstance(agent, AgentEntry) else None


def _agent_location(ls: RelaviumLanguageServer, agent: AgentEntry) -> types.Location:
    """The agent's `id` in its file (the editor's text when it is open, as the index has it)."""
    lines = LineIndex(agent.source.text, ls.position_encoding, agent.source.line_starts)
    return types.Location(uri=str(from_fs_path(agent.path)),
                          range=lines.to_client_range(agent.range))


async def _file_agent_references(
    ls: RelaviumLanguageServer, view: View, name: str, include_declaration: bool
) -> list[types.Location] | None:
    """For an agent file's agent: its `id`, and the `agent_ref`s to it in every open workflow
    that resolves `name` to the same file (None: not an agent file's agent)."""
    agent = await _file_agent(ls, view, name)
    if agent is None:
        return None
    found = [_agent_location(ls, agent)] if include_declaration else []
    for uri in list(ls.documents):
        other = view if uri == view.snapshot.uri else await view_of(ls, uri)
        if other is None:
            continue
        same = await _file_agent(ls, other, name)
        if same is None or same.path != agent.path:
            continue
        found += [location for place in symbol_index(other.workflow).references(
                      SymbolKind.AGENT, name)
                  if not place.is_definition and (location := _location(other, place))]
    return found


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
    return view, index, rename_target(index, view.live_offset(position))


class _Refused:
    """A `RenameRefused` carried out of `guarded` (which answers None to any other error)."""

    def __init__(self, message: str) -> None:
        self.message = message


def _refusable(
    handler: Callable[[RelaviumLanguageServer, P], Awaitable[T | None]],
) -> Callable[[RelaviumLanguageServer, P], Awaitable[T | None]]:
    """Run a rename handler guarded; its refusal becomes an error response the client shows
    to the user (LSP's way to say why a rename cannot be done)."""

    @guarded()
    async def carried(ls: RelaviumLanguageServer, params: P) -> T | _Refused | None:
        try:
            return await handler(ls, params)
        except RenameRefused as refused:
            return _Refused(str(refused))

    @functools.wraps(handler)
    async def answer(ls: RelaviumLanguageServer, params: P) -> T | None:
        outcome = await carried(ls, params)
        if isinstance(outcome, _Refused):
            raise RequestRefused(outcome.message)
        return outcome

    return answer


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
        if occurrence.kind is SymbolKind.AGENT:
            agent = await _file_agent(ls, view, occurrence.name)
            if agent is not None:  # the id in its agent file
                return [_agent_location(ls, agent)]
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
        if occurrence.kind is SymbolKind.AGENT:
            across = await _file_agent_references(ls, view, occurrence.name,
                                                  params.context.include_declaration)
            if across is not None:
                return across
        places = symbol_index(view.workflow).references(occurrence.kind, occurrence.name)
        if not params.context.include_declaration:
            places = [place for place in places if not place.is_definition]
        return [loc for place in places if (loc := _location(view, place)) is not None]

    @ls.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @_refusable
    async def prepare_rename(
        ls: RelaviumLanguageServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        target = await _rename_target(ls, params.text_document.uri, params.position)
        if target is None:
            return None
        view, _, occurrence = target
        found = view.client_range(occurrence.start, occurrence.end)
        if found is None:
            return None
        return types.PrepareRenamePlaceholder(range=found, placeholder=occurrence.name)

    @ls.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    @_refusable
    async def rename(
        ls: RelaviumLanguageServer, params: types.RenameParams
    ) -> types.WorkspaceEdit | None:
        target = await _rename_target(ls, params.text_document.uri, params.position)
        if target is None:
            return None
        view, index, occurrence = target
        replacements = plan_rename(index, occurrence, params.new_name)
        return workspace_edit(
            ls.client_capabilities, view.snapshot, offset_edits(view.snapshot, replacements)
        )
