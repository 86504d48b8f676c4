"""Telling, before the server is loaded, that the client opened a document: `serve` sends a
large one to the analysis process at once (`server.lsp.worker.spawn.StartedProcess.warm`), which
would otherwise wait for the server to load (most of a second) before its analysis began.

Only the standard library (and `wire_json`) may be imported here."""

from __future__ import annotations

from server.lsp.boot.wire_json import parse_message

DID_OPEN = "textDocument/didOpen"
_DID_OPEN_BYTES = b'"' + DID_OPEN.encode() + b'"'


def opened_document(body: bytes) -> tuple[str, str] | None:
    """(uri, text) of a frame that is a `textDocument/didOpen` notification, else None."""
    if _DID_OPEN_BYTES not in body:  # most frames: nothing parsed
        return None
    try:
        message = parse_message(body.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError included: the loaded server answers for it
        return None
    if not isinstance(message, dict) or message.get("method") != DID_OPEN or "id" in message:
        return None
    params = message.get("params")
    document = params.get("textDocument") if isinstance(params, dict) else None
    if not isinstance(document, dict):
        return None
    uri, text = document.get("uri"), document.get("text")
    if not isinstance(uri, str) or not isinstance(text, str):
        return None
    return uri, text
