"""An agent file's agent across its project, for references and rename
(`server.lsp.features.navigation`): the project's workflows as the editor has them (its open
buffers' current text, the rest from disk: `analysis.project.workflows`), the agent under the
cursor in an open agent file, and a rename's plan as one `WorkspaceEdit` over every file it
touches (a `RenameFile` for the agent file only when the client takes resource renames)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.uris import from_fs_path, to_fs_path

from analysis.document.edits import Replacement
from analysis.document.scalar_offsets import ScalarText
from analysis.document.yaml_nodes import YScalar
from analysis.ide.agent_places import AgentRename
from analysis.project.workflows import ProjectWorkflow, project_workflows
from analysis.project.workspace import AgentEntry, WorkspaceIndex
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.positions import LineIndex


@dataclass(frozen=True)
class OpenText:
    uri: str
    text: str
    version: int


@dataclass(frozen=True)
class ProjectTexts:
    """A project's workflows, and the open documents' texts and versions at that moment (the
    ones a rename's edits must apply to)."""

    workflows: list[ProjectWorkflow]
    open: dict[str, OpenText]  # absolute path → the buffer


def _path(uri: str) -> str | None:
    return to_fs_path(uri) if uri.startswith("file:") else None


def open_texts(ls: RelaviumLanguageServer) -> dict[str, OpenText]:
    return {path: OpenText(uri, session.text, session.version)
            for uri, session in list(ls.documents.items()) if (path := _path(uri))}


async def project_texts(ls: RelaviumLanguageServer, index: WorkspaceIndex) -> ProjectTexts:
    buffers = open_texts(ls)  # taken on the event loop: no edit comes between texts and versions
    excluded = ls.project_config.excludes if ls.project_config is not None else None
    workflows = await asyncio.to_thread(
        project_workflows, index.root, {path: item.text for path, item in buffers.items()},
        excluded)
    return ProjectTexts(workflows, buffers)


def id_range(agent: AgentEntry) -> tuple[int, int]:
    """The agent id's characters in its file (inside any quotes)."""
    entry = agent.mapping.get("id")
    assert entry is not None and isinstance(entry.value, YScalar)
    text = ScalarText(entry.value, agent.source)
    return text.source_span(0, len(text.value))


def agent_file_target(ls: RelaviumLanguageServer, uri: str, position: types.Position
                      ) -> tuple[WorkspaceIndex, AgentEntry, types.Range] | None:
    """The agent whose `id` the cursor is on in an open agent file of a project, and the id's
    range; None elsewhere (the index holds the buffer's text, so offsets are the client's)."""
    session = ls.document(uri)
    index = ls.workspace_index(uri)
    path = _path(uri)
    if session is None or index is None or path is None:
        return None
    agent = index.agent_file(path).agent
    if agent is None or agent.source.text != session.text:
        return None
    lines = LineIndex(session.text, ls.position_encoding)
    start, end = id_range(agent)
    if not start <= lines.client_offset(position) <= end:
        return None
    return index, agent, types.Range(start=lines.to_client_position(lines.position_at(start)),
                                     end=lines.to_client_position(lines.position_at(end)))


def location(ls: RelaviumLanguageServer, path: str, text: str, start: int, end: int
             ) -> types.Location:
    lines = LineIndex(text, ls.position_encoding)
    return types.Location(uri=str(from_fs_path(path)), range=types.Range(
        start=lines.to_client_position(lines.position_at(start)),
        end=lines.to_client_position(lines.position_at(end))))


def _text_edits(ls: RelaviumLanguageServer, text: str, replacements: list[Replacement]
                ) -> list[types.TextEdit]:
    lines = LineIndex(text, ls.position_encoding)
    return [types.TextEdit(range=types.Range(
                start=lines.to_client_position(lines.position_at(start)),
                end=lines.to_client_position(lines.position_at(end))), new_text=new_text)
            for start, end, new_text in sorted(replacements)]


def takes_file_renames(capabilities: types.ClientCapabilities) -> bool:
    operations = get_capability(capabilities, "workspace.workspace_edit.resource_operations", [])
    return bool(get_capability(capabilities, "workspace.workspace_edit.document_changes", False)
                and types.ResourceOperationKind.Rename in (operations or []))


def rename_edit(ls: RelaviumLanguageServer, plan: AgentRename, texts: ProjectTexts,
                agent: AgentEntry) -> types.WorkspaceEdit:
    """The plan as one workspace edit: each file's text edits (versioned for an open one), then
    the agent file's rename."""
    on_disk = {item.path: item.text for item in texts.workflows if item.text is not None}
    on_disk[agent.path] = agent.source.text
    per_file: list[tuple[str, int | None, list[types.TextEdit]]] = []
    for path, replacements in sorted(plan.edits.items()):
        buffer = texts.open.get(path)
        text = buffer.text if buffer is not None else on_disk[path]
        per_file.append((str(from_fs_path(path)), buffer.version if buffer else None,
                         _text_edits(ls, text, replacements)))
    if not get_capability(ls.client_capabilities, "workspace.workspace_edit.document_changes",
                          False):
        return types.WorkspaceEdit(changes={uri: edits for uri, _, edits in per_file})
    changes: list[types.TextDocumentEdit | types.RenameFile] = [
        types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri,
                                                                        version=version),
            edits=list(edits))
        for uri, version, edits in per_file]
    if plan.file_rename is not None:
        old, new = plan.file_rename
        changes.append(types.RenameFile(
            old_uri=str(from_fs_path(old)), new_uri=str(from_fs_path(new)),
            options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False)))
    return types.WorkspaceEdit(document_changes=changes)
