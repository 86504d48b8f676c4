"""Text edits from code-point offsets, packaged the way the client accepts workspace edits."""

from __future__ import annotations

from lsprotocol import types
from pygls.capabilities import get_capability

from server.lsp.documents import Snapshot

# (start offset, end offset, new text) in the snapshot's code points
Replacement = tuple[int, int, str]


def text_edits(snapshot: Snapshot, replacements: list[Replacement]) -> list[types.TextEdit]:
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
    capabilities: types.ClientCapabilities, snapshot: Snapshot, replacements: list[Replacement]
) -> types.WorkspaceEdit:
    """A versioned `documentChanges` edit when the client takes one (so a stale fix is refused),
    plain `changes` otherwise."""
    edits = text_edits(snapshot, replacements)
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
    return types.WorkspaceEdit(changes={snapshot.uri: edits})
