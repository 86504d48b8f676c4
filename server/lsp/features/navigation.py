"""Go to definition, find references and rename for node ids (and definition/references for
`inputs.x`, `ctx.x`, `agent_ref` and an edge's `cond:handle`), over `analysis.ide.navigation`'s
symbol index. An `agent_ref` to an agent file's agent goes to that file's `id` (the workspace
agent index, `RelaviumLanguageServer.agent_resolution`); its references, from an `agent_ref` or
from the `id` in the open agent file, are that `id` and the `agent_ref`s of every workflow of
the project resolving to the same file, open or not, and its rename changes them all
(`server.lsp.agent_places`). An inline agent's id is renamed in its workflow."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from lsprotocol import types
from pygls.uris import from_fs_path

from analysis.ide.agent_places import agent_uses, plan_agent_rename
from analysis.ide.navigation import Occurrence, SymbolIndex, SymbolKind, symbol_index
from analysis.ide.rename import RenameRefused, plan_rename, rename_target
from analysis.project.workspace import AgentEntry, WorkspaceIndex
from server.lsp.agent_places import (
    agent_file_target,
    location,
    project_texts,
    rename_edit,
    takes_file_renames,
)
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
    ls: RelaviumLanguageServer, index: WorkspaceIndex, agent: AgentEntry,
    include_declaration: bool,
) -> list[types.Location]:
    """An agent file's agent: its `id`, and the `agent_ref`s resolving to it in every workflow
    of its project, open (the buffer's text) or not (the disk's)."""
    texts = await project_texts(ls, index)
    uses = await asyncio.to_thread(agent_uses, index, agent, texts.workflows)
    found = [_agent_location(ls, agent)] if include_declaration else []
    for use in uses:
        path, text = use.workflow.path, use.workflow.text
        assert text is not None  # a workflow with a model was read
        found += [location(ls, path, text, place.start, place.end) for place in use.places]
    return found


async def _agent_rename(ls: RelaviumLanguageServer, index: WorkspaceIndex, agent: AgentEntry,
                        new_id: str) -> types.WorkspaceEdit:
    texts = await project_texts(ls, index)
    plan = await asyncio.to_thread(plan_agent_rename, index, agent, texts.workflows, new_id,
                                   takes_file_renames(ls.client_capabilities))
    return rename_edit(ls, plan, texts, agent)


@dataclass(frozen=True)
class _InWorkflow:
    """A node id or an inline agent's id, renamed in its workflow alone."""

    view: View
    index: SymbolIndex
    occurrence: Occurrence
    taken_elsewhere: set[str]  # the agent ids the workflow's agent files define


@dataclass(frozen=True)
class _FileAgent:
    """An agent file's agent, renamed across its project."""

    index: WorkspaceIndex
    agent: AgentEntry
    range: types.Range | None  # the name under the cursor


async def _rename_target(
    ls: RelaviumLanguageServer, uri: str, position: types.Position
) -> _InWorkflow | _FileAgent | None:
    """What to rename (None for a document that is neither an open workflow nor an open agent
    file's id); edits must apply to exactly the text the client has."""
    in_agent_file = agent_file_target(ls, uri, position)
    if in_agent_file is not None:
        return _FileAgent(*in_agent_file)
    view = await view_of(ls, uri)
    if view is None:
        return None
    if not view.current:
        raise RenameRefused("the YAML does not parse right now; fix the syntax error, then rename")
    index = symbol_index(view.workflow)
    occurrence = index.at(view.live_offset(position))
    if occurrence is not None and occurrence.kind is SymbolKind.AGENT and \
            index.definition(SymbolKind.AGENT, occurrence.name) is None:
        agent = await _file_agent(ls, view, occurrence.name)
        workspace = ls.workspace_index(uri)
        if agent is not None and workspace is not None:
            return _FileAgent(workspace, agent, view.client_range(occurrence.start,
                                                                  occurrence.end))
    occurrence = rename_target(index, view.live_offset(position))
    resolution = await ls.agent_resolution(uri, view.workflow)
    elsewhere = resolution.known_ids() if resolution is not None else set()
    return _InWorkflow(view, index, occurrence, elsewhere)


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
        include = params.context.include_declaration
        in_agent_file = agent_file_target(ls, params.text_document.uri, params.position)
        if in_agent_file is not None:
            index, open_agent, _ = in_agent_file
            return await _file_agent_references(ls, index, open_agent, include)
        found = await _under_cursor(ls, params.text_document.uri, params.position)
        if found is None:
            return []
        view, occurrence = found
        if occurrence.kind is SymbolKind.AGENT:
            agent = await _file_agent(ls, view, occurrence.name)
            workspace = ls.workspace_index(view.snapshot.uri)
            if agent is not None and workspace is not None:
                return await _file_agent_references(ls, workspace, agent, include)
        places = symbol_index(view.workflow).references(occurrence.kind, occurrence.name)
        if not include:
            places = [place for place in places if not place.is_definition]
        return [loc for place in places if (loc := _location(view, place)) is not None]

    @ls.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @_refusable
    async def prepare_rename(
        ls: RelaviumLanguageServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        target = await _rename_target(ls, params.text_document.uri, params.position)
        if isinstance(target, _FileAgent):
            found, name = target.range, target.agent.id
        elif target is not None:
            occurrence = target.occurrence
            found = target.view.client_range(occurrence.start, occurrence.end)
            name = occurrence.name
        if target is None or found is None:
            return None
        return types.PrepareRenamePlaceholder(range=found, placeholder=name)

    @ls.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    @_refusable
    async def rename(
        ls: RelaviumLanguageServer, params: types.RenameParams
    ) -> types.WorkspaceEdit | None:
        target = await _rename_target(ls, params.text_document.uri, params.position)
        if target is None:
            return None
        if isinstance(target, _FileAgent):
            return await _agent_rename(ls, target.index, target.agent, params.new_name)
        replacements = plan_rename(target.index, target.occurrence, params.new_name,
                                   target.taken_elsewhere)
        snapshot = target.view.snapshot
        return workspace_edit(
            ls.client_capabilities, snapshot, offset_edits(snapshot, replacements)
        )
