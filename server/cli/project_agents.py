"""The agent indexes of one command-line run: one `WorkspaceIndex` per project root, built on
first use, so a workflow's `$ref` files and its project's agent files are read once for every
file checked — and the same agents are seen by `check`'s report and by `--fix`'s analyses."""

from __future__ import annotations

import os

from analysis.project.workspace import WorkspaceIndex, project_root

_indexes: dict[str, WorkspaceIndex] = {}


def workspace_of(path: str | None) -> WorkspaceIndex | None:
    """The index `path` resolves its agents in (None for standard input: nothing to resolve)."""
    if path is None:
        return None
    root = project_root(path, os.getcwd())
    if root not in _indexes:
        _indexes[root] = WorkspaceIndex(root)
    return _indexes[root]


def rewritten(path: str) -> None:
    """`path` was rewritten on disk (by `--fix`): every index reads it again when it needs it."""
    for index in _indexes.values():
        index.update(path, None)
