"""Which Relavium files a workspace has, found as `relavium-lsp check FOLDER` finds them, and the
reading of its agent files into their projects' agent indexes: the language server's start-up
indexing (`server.lsp.features.workspace_diagnostics` runs it after `initialized`).

The walk is `check`'s own (`analysis.project.files.walk_workflow_files`): workflows and agent
files by `analysis.project.kinds.file_kind`, the project configuration's excludes, `.gitignore`,
hidden folders but `.relavium/` skipped, never through a link out of the folder. Agent files are
read by the index itself (`WorkspaceIndex.agent_file`: the bounded, regular-file-only reader,
never through a link out of the project). Workflows are listed, not read: workspace diagnostics
read each one when they analyse it, and keep no parse tree.

Bounded: at most `MAX_FILES` files and `MAX_BYTES` bytes of them (their sizes on disk) are
taken, walking folders in sorted order; past either the scan stops and says so in one line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pygls.uris import from_fs_path

from analysis.project.config import ProjectConfig
from analysis.project.files import walk_workflow_files
from analysis.project.kinds import FileKind, file_kind
from analysis.project.workspace import WorkspaceIndex, find_project

MAX_FILES = 5000
MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class WorkspaceFile:
    """A workflow or agent file the walk found, as it was on disk then."""

    uri: str
    path: str  # absolute
    kind: FileKind
    project: str | None  # the folder holding its `.relavium/` (`find_project`), if any
    stamp: tuple[int, int]  # (size, mtime in ns): what says it changed on disk


@dataclass
class Scan:
    files: dict[str, WorkspaceFile] = field(default_factory=dict)  # by URI, in walk order
    # what the walk skipped and could not list (links out, FIFOs, unreadable folders)
    notes: list[str] = field(default_factory=list)
    # the line saying which bound stopped the scan, or None when it saw everything
    limit: str | None = None
    total_bytes: int = 0
    roots: list[str] = field(default_factory=list)  # the folders walked

    def of_kind(self, kind: FileKind) -> list[WorkspaceFile]:
        return [file for file in self.files.values() if file.kind is kind]


def disk_stamp(path: str) -> tuple[int, int] | None:
    """(size, mtime in ns) of a file, or None when it is gone or unreadable."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_size, info.st_mtime_ns


def scan_folders(folders: Iterable[tuple[str, ProjectConfig | None]],
                 max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES) -> Scan:
    """The Relavium files of each (folder, its project configuration), as `check` walks them; a
    file under two (nested) folders is listed once."""
    scan = Scan()
    for root, config in folders:
        scan.roots.append(root)
        left = max_files - len(scan.files)
        walk = walk_workflow_files(Path(root), config.excludes if config else None,
                                   gitignore=True, max_files=left + 1)
        scan.notes.extend([*walk.skipped, *walk.unreadable])
        for found in walk.files:
            path = os.path.abspath(found)
            uri = str(from_fs_path(path))
            if uri in scan.files:
                continue
            stamp = disk_stamp(path)
            if stamp is None:
                continue
            if len(scan.files) >= max_files:
                scan.limit = (f"relavium-lsp: the workspace has more than {max_files:,} Relavium "
                              f"files; indexed the first {max_files:,} (folders in name order)")
                return scan
            if scan.total_bytes + stamp[0] > max_bytes:
                scan.limit = (f"relavium-lsp: the workspace's Relavium files pass {max_bytes:,} "
                              f"bytes; indexed the first {len(scan.files):,} "
                              f"({scan.total_bytes:,} bytes, folders in name order)")
                return scan
            kind = file_kind(Path(path))
            assert kind is not None  # the walk keeps only files of a kind
            scan.files[uri] = WorkspaceFile(uri, path, kind, find_project(path), stamp)
            scan.total_bytes += stamp[0]
    return scan


def read_agents(files: Iterable[WorkspaceFile],
                index_of: Callable[[str], WorkspaceIndex | None]) -> int:
    """Read the agent files among `files` into their projects' indexes (`index_of(project)`),
    one file at a time, so an analysis resolving meanwhile waits for at most one read. Returns
    how many were read (an agent file in no project is read when a `$ref` names it)."""
    read = 0
    for file in files:
        if file.kind is not FileKind.AGENT:
            continue
        index = index_of(file.project) if file.project is not None else None
        if index is not None:
            index.agent_file(file.path)
            read += 1
    return read


def list_project_agents(indexes: dict[str, WorkspaceIndex]) -> None:
    """List each project's agent files (by project folder) in its index, from what was read."""
    for project, index in indexes.items():
        index.folder_agents(project)
