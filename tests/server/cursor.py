"""Cursor helpers for the editor-feature tests: find text in a document, as client positions."""

from __future__ import annotations

from lsprotocol import types

from server.lsp.positions import LineIndex
from tests.server.conftest import RelaviumClient


def offset_of(text: str, needle: str, nth: int = 0, at: int = 0) -> int:
    """The code-point offset `at` characters into the `nth` occurrence of `needle`."""
    start = -1
    for _ in range(nth + 1):
        start = text.find(needle, start + 1)
        assert start != -1, f"{needle!r} (#{nth}) not in the document"
    return start + at


def position(client: RelaviumClient, text: str, needle: str, nth: int = 0,
             at: int = 0) -> types.Position:
    """The client position (negotiated encoding) of `offset_of(...)`."""
    lines = LineIndex(text, client.encoding)
    return lines.to_client_position(lines.position_at(offset_of(text, needle, nth, at)))


def spanned(client: RelaviumClient, text: str, range_: types.Range) -> str:
    """The text a client range covers."""
    lines = LineIndex(text, client.encoding)
    start = lines.client_offset(range_.start)
    end = lines.client_offset(range_.end)
    return text[start:end]


def identifier(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)
