"""Which URIs are Relavium documents (workflows and agent files), and their paths. Loads in no
time (no pygls server, no lsprotocol), so `serve` can tell a large document opened while the
server loads (`server.lsp.serve`)."""

from __future__ import annotations

from pathlib import PurePath, PurePosixPath
from urllib.parse import unquote, urlparse

from pygls.uris import to_fs_path

from analysis.project.kinds import FileKind, file_kind


def is_relavium_uri(uri: str) -> bool:
    """The document selector (`analysis.project.kinds.file_kind`: a workflow or an agent file),
    for `file:` and unsaved (`untitled:`) URIs; the analysis tells the two apart by the same
    function on the document's path."""
    return file_kind(PurePosixPath(unquote(urlparse(uri).path))) is not None


def is_agent_uri(uri: str) -> bool:
    """Whether a `file:` URI names an agent file (`analysis.project.kinds.file_kind`)."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return path is not None and file_kind(PurePath(path)) is FileKind.AGENT


def uri_to_path(uri: str) -> str:
    """A filesystem path for analysis messages and sidecar lookup (the URI when not a file)."""
    return to_fs_path(uri) or uri
