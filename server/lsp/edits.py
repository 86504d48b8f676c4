"""Text edits in client positions, packaged the way the client accepts workspace edits."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lsprotocol import types
from pygls.capabilities import get_capability

from analysis.diagnostics import Edit
from analysis.document.edits import Replacement
from server.lsp.documents import Snapshot


def text_edits(snapshot: Snapshot, edits: Iterable[Edit]) -> list[types.TextEdit]:
    """A fix's edits (positions in the snapshot's analysed text) in client positions."""
    lines = snapshot.lines
    return [
        types.TextEdit(range=lines.to_client_range(edit.range), new_text=edit.new_text)
        for edit in edits
    ]


def offset_edits(snapshot: Snapshot, replacements: Iterable[Replacement]) -> list[types.TextEdit]:
    """Replacements in the snapshot's code-point offsets (a rename's plan) in client positions."""
    lines = snapshot.lines
    return [
        types.TextEdit(
            range=types.Range(
                start=lines.to_client_position(lines.position_at(start)),
                end=lines.to_client_position(lines.position_at(end)),
            ),
            new_text=new_text,
        )
        for start, end, new_text in replacements
    ]


def workspace_edit(
    capabilities: types.ClientCapabilities, snapshot: Snapshot, edits: Sequence[types.TextEdit]
) -> types.WorkspaceEdit:
    """A versioned `documentChanges` edit when the client takes one (so a stale fix is refused),
    plain `changes` otherwise."""
    if get_capability(capabilities, "workspace.workspace_edit.document_changes", False):
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=snapshot.uri, version=snapshot.version
                    ),
                    edits=list(edits),
                )
            ]
        )
    return types.WorkspaceEdit(changes={snapshot.uri: list(edits)})
