"""The workspace's folders and the files the server may read in them, and the analysed snapshots
of a document (`Snapshot`) that features serve from; which URIs are Relavium documents is
`server.lsp.document_uris`, a document's session `server.lsp.session.Session`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from pygls.uris import to_fs_path
from pygls.workspace import Workspace

from server.lsp.positions import LineIndex

if TYPE_CHECKING:
    from analysis.checks.analyze import AnalysisResult
    from analysis.dryrun.presentation import Annotation

def workspace_roots(workspace: Workspace) -> list[str]:
    """The workspace folders' paths, else the root path (a client may send either or both)."""
    folders = [path for folder in workspace.folders.values() if (path := to_fs_path(folder.uri))]
    return folders or ([workspace.root_path] if workspace.root_path else [])


def project_root(workspace: Workspace) -> str | None:
    """Where the project configuration is read: the root path, else the first workspace folder
    (a client that sends only `workspaceFolders` still has its `relavium.toml` read)."""
    roots = workspace_roots(workspace)
    return workspace.root_path or (roots[0] if roots else None)


def workspace_file(uri: str, roots: list[str]) -> str:
    """The path of a file the server may read for a document the editor has not opened: one
    inside a workspace folder (`roots`) once links are resolved. Raises OSError otherwise (a
    repository could link a workflow to any file on the machine)."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if path is None:
        raise OSError("it is not open in the editor and not a file")
    real = os.path.realpath(path)
    if not any(os.path.commonpath([real, os.path.realpath(root)]) == os.path.realpath(root)
               for root in roots):
        raise OSError("it is outside the workspace folders and not open in the editor; "
                      "open it to run it")
    return path


@dataclass
class Snapshot:
    """One analysed version of a document. Positions in `result` refer to `text`."""

    uri: str
    version: int
    text: str
    result: AnalysisResult
    encoding: str
    # False for a large document's diagnosis from the analysis process (`result` has its
    # diagnostics but no model); requests never serve from such a snapshot.
    has_model: bool = True
    # per rule, diagnostics the analysis process left out of `result` (see `Diagnosis`)
    omitted: dict[str, int] = field(default_factory=dict)

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.text, self.encoding, self.result.source.line_starts)

    @property
    def is_good(self) -> bool:
        """Whether the YAML parsed into a workflow model other features can serve from."""
        return self.has_model and self.result.workflow is not None


@dataclass(frozen=True)
class DryRunView:
    """A dry run's results placed in one version of a document."""

    version: int
    snapshot: Snapshot
    annotations: list[Annotation]
    stamp: int  # distinguishes runs on the same version (pull diagnostics' result id)
