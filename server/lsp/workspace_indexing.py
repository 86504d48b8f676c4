"""The start-up indexing of the workspace, with its progress (`server.lsp.workspace_scan` says
what is read): run in the background once `initialized` is in, by
`server.lsp.features.workspace_diagnostics`, and again (without progress) when the files it
found may have changed (a file created, the project configuration edited).

Requests and open documents' analyses go on meanwhile: the walk and the reads run on threads,
and an agent index's lock is held for one file at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid

from lsprotocol import types
from pygls.capabilities import get_capability

from analysis.project.config import ProjectConfig
from analysis.project.kinds import FileKind
from analysis.project.workspace import WorkspaceIndex
from server.lsp import project_settings
from server.lsp.documents import project_root, workspace_roots
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.workspace_scan import Scan, list_project_agents, read_agents, scan_folders

# Agent files read between two progress reports.
PROGRESS_CHUNK = 25
# How long the server waits for the client to accept a progress token before going on without.
PROGRESS_CREATE_SECONDS = 2.0
PROGRESS_TITLE = "Relavium: indexing the workspace"


class Progress:
    """`window/workDoneProgress` for one piece of work, or nothing when the client does not
    support it (or does not accept the token)."""

    def __init__(self, ls: RelaviumLanguageServer, token: str | None) -> None:
        self._ls = ls
        self._token = token

    @classmethod
    async def begin(cls, ls: RelaviumLanguageServer, title: str, shown: bool) -> Progress:
        if not shown or not get_capability(ls.client_capabilities, "window.work_done_progress",
                                           False):
            return cls(ls, None)
        token = f"relavium-indexing-{uuid.uuid4().hex}"
        try:
            await asyncio.wait_for(ls.work_done_progress.create_async(token),
                                   PROGRESS_CREATE_SECONDS)
        except Exception as error:  # refused, not answered in time, or the connection closing
            ls.log_warning(f"relavium-lsp: indexing without progress reports ({error!r})")
            return cls(ls, None)
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=title, percentage=0, cancellable=False))
        return cls(ls, token)

    def report(self, message: str, percentage: int) -> None:
        if self._token is not None:
            self._ls.work_done_progress.report(self._token, types.WorkDoneProgressReport(
                message=message, percentage=percentage))

    def end(self, message: str) -> None:
        if self._token is not None:
            self._ls.work_done_progress.end(self._token, types.WorkDoneProgressEnd(
                message=message))
            self._token = None


def workspace_folders(ls: RelaviumLanguageServer) -> list[tuple[str, ProjectConfig | None]]:
    """Each workspace folder (the root path for a client that names none) and the project
    configuration whose excludes apply there: the server's own for the root, as for open
    documents; an invalid file's folder is walked without excludes, as the server uses its
    defaults until it is fixed. Reads files: call it on a thread."""
    configured = project_root(ls.workspace)
    folders: list[tuple[str, ProjectConfig | None]] = []
    for root in workspace_roots(ls.workspace):
        if os.path.isdir(root):
            config = ls.project_config if root == configured else project_settings.load_for(root)[0]
            folders.append((os.path.abspath(root), config))
    return folders


async def index_workspace(ls: RelaviumLanguageServer, start_up: bool) -> Scan:
    """List the workspace's files and read its agent files into their projects' indexes; at
    `start_up`, report progress when the client supports it, and log what the walk skipped, what
    it found and in how long. Logs the bound that stopped it, if one did."""
    began = time.perf_counter()
    folders = await asyncio.to_thread(workspace_folders, ls)
    # no progress (and no line) for a client that opened no folder: nothing to index
    start_up = start_up and bool(folders)
    progress = await Progress.begin(ls, PROGRESS_TITLE, start_up)
    try:
        scan = await asyncio.to_thread(scan_folders, folders)
        agents = scan.of_kind(FileKind.AGENT)
        progress.report(f"{len(scan.files):,} files found", 10)
        # Made here, on the event loop, as every other caller makes them.
        indexes: dict[str, WorkspaceIndex] = {}
        for file in scan.files.values():
            if file.project is not None and file.project not in indexes:
                index = ls.workspace_index(file.uri)
                if index is not None:
                    indexes[file.project] = index
        for start in range(0, len(agents), PROGRESS_CHUNK):
            chunk = agents[start:start + PROGRESS_CHUNK]
            await asyncio.to_thread(read_agents, chunk, indexes.get)
            done = start + len(chunk)
            progress.report(f"{done:,} of {len(agents):,} agent files read",
                            10 + 85 * done // len(agents))
        await asyncio.to_thread(list_project_agents, indexes)
    finally:
        seconds = time.perf_counter() - began
        with contextlib.suppress(Exception):  # the connection may be closing
            progress.end(f"done in {seconds:.2f} s")
    if scan.limit is not None:
        ls.log_warning(f"{scan.limit}; the rest are read when a workflow needs them and get no "
                       "workspace diagnostics")
    if not start_up:
        return scan  # a listing again: the start-up lines said what the workspace holds
    for note in scan.notes:
        ls.log(f"relavium-lsp: {note}")
    workflows = len(scan.files) - len(agents)
    ls.log(f"relavium-lsp: indexed {workflows:,} workflows and {len(agents):,} agent files "
           f"({scan.total_bytes:,} bytes) in {seconds:.2f} s")
    return scan
