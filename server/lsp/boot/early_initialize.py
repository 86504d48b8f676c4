"""Answering `initialize` before the server is loaded.

Importing pygls and lsprotocol takes most of a second (lsprotocol defines ~570 attrs classes), and
the analysis and feature modules as much again, yet the first answer a client waits for needs none
of it: the capabilities depend on which features are registered (fixed) and on a few things the
client says — the position encodings it offers, whether it can pull diagnostics and be told to pull
again, and three flags pygls reads (prepareRename, willSave, willSaveWaitUntil support). So
`relavium-lsp serve` over stdio reads the first frame before importing anything heavy and, when it
is an `initialize` request this module can answer exactly, answers it from `capabilities.json`.
The server, once loaded, handles that same request as usual (its state comes from there) and drops
its own answer after checking that it is the one already sent (`server.lsp.protocol`).

Only stdlib (and `server.lsp.boot.transport` and `wire_json`, stdlib-only) may be imported here at
module level.

`capabilities.json` is what the real server answers, server name and version included (reading the
installed version takes importlib.metadata, as long as the rest), written by
`python -m server.lsp.capabilities`; tests/server/lsp/test_early_initialize.py fails when it is
out of date (after a feature or version change) and compares the early answer with the server's
own for real client profiles.
"""

from __future__ import annotations

import json
import logging
import os
from typing import IO, Any, NamedTuple

from server.lsp.boot.transport import FramePump, stdin_frames
from server.lsp.boot.wire_json import parse_message

logger = logging.getLogger("relavium-lsp")

CAPABILITIES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "capabilities.json")
# The encodings pygls can serve; it takes the first of the client's list that is one of them.
ENCODINGS = ("utf-8", "utf-16", "utf-32")
DEFAULT_ENCODING = "utf-16"
TRACE_VALUES = ("off", "messages", "verbose")
REFRESH = "workspace.diagnostics.refreshSupport"
# Client flags pygls' capability builder reads: each, true or false, changes the answer in its own
# way (`when_flag` in capabilities.json); pull diagnostics are `when_pulling`.
FLAGS = (
    "textDocument.synchronization.willSave",
    "textDocument.synchronization.willSaveWaitUntil",
    "textDocument.rename.prepareSupport",
)


class EarlyAnswer(NamedTuple):
    request_id: int | str
    result: dict[str, Any]
    # Client capabilities holding only what the answer depended on: what the server structures
    # instead when the client's own do not have the shape LSP gives them (the answer is sent).
    capabilities: dict[str, Any]


class Opening(NamedTuple):
    """What `serve` read, and answered, before the server was loaded: the client's frames (the
    first one already read, the rest not yet: `serve` starts the pump), and the early answer."""

    frames: FramePump
    answered: EarlyAnswer | None


class _Unsure(Exception):
    """The request has a value whose reading by pygls this module does not reproduce."""


def open_stdio(stdout: IO[bytes]) -> Opening:
    """Read the first frame from stdin and answer it when it is an `initialize` request this
    module can answer exactly."""
    reader = stdin_frames()
    try:
        first = reader.next()
    except (OSError, ValueError):  # stdin closed under us: the server's own reader reports it
        first = None
    answered = early_answer(first) if isinstance(first, bytes) else None
    if answered is not None:
        body = json.dumps({"jsonrpc": "2.0", "id": answered.request_id, "result": answered.result})
        stdout.write(
            b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
            % len(body) + body.encode()  # json.dumps escapes non-ASCII: one byte per character
        )
        stdout.flush()
    return Opening(FramePump(reader, first), answered)


def early_answer(body: bytes) -> EarlyAnswer | None:
    """The answer the server would give to this `initialize` request, or None when the frame is
    not one or has a value pygls might read otherwise (the loaded server then answers it)."""
    try:
        message = parse_message(body.decode("utf-8"))
    except ValueError:  # not UTF-8 JSON: the loaded server answers it with the error it earns
        return None
    if not (
        isinstance(message, dict)
        and message.get("jsonrpc") == "2.0"
        and message.get("method") == "initialize"
        and _is_id(message.get("id"))
        and isinstance(message.get("params"), dict)
        and isinstance(message["params"].get("capabilities"), dict)
    ):
        return None
    params = message["params"]
    try:
        _check_top_level(params)
        client = _ClientSays.read(params["capabilities"])
    except _Unsure:
        return None
    try:
        result = _result(client)
    except (OSError, ValueError, LookupError, TypeError) as error:  # a broken installation
        logger.warning("%s cannot be used (%r); initialize is answered once the server has "
                       "loaded", CAPABILITIES_FILE, error)
        return None
    return EarlyAnswer(message["id"], result, client.minimal_capabilities())


def _result(client: _ClientSays) -> dict[str, Any]:
    with open(CAPABILITIES_FILE, encoding="utf-8") as handle:
        snapshot = json.load(handle)
    capabilities = snapshot["capabilities"]
    if client.pull:
        capabilities = patched(capabilities, snapshot["when_pulling"])
    for path, value in client.flags.items():
        capabilities = patched(capabilities, snapshot["when_flag"][path][json.dumps(value)])
    capabilities["positionEncoding"] = client.encoding
    return {"capabilities": capabilities, "serverInfo": snapshot["serverInfo"]}


def patched(tree: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """`tree` with `patch` merged in, object members recursively."""
    merged = dict(tree)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = patched(merged[key], value)
        else:
            merged[key] = value
    return merged


def _is_id(value: object) -> bool:
    return isinstance(value, str) or _is_int(value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_top_level(params: dict[str, Any]) -> None:
    """Raise _Unsure unless every member but `capabilities` has a shape lsprotocol structures
    as it is: the server falls back to `minimal_capabilities` only for the capabilities."""

    def optional(name: str, fits: Any) -> None:
        value = params.get(name)
        if value is not None and not fits(value):
            raise _Unsure

    def is_str(value: object) -> bool:
        return isinstance(value, str)

    def is_client_info(value: object) -> bool:
        return (
            isinstance(value, dict)
            and is_str(value.get("name"))
            and (value.get("version") is None or is_str(value.get("version")))
        )

    def is_folders(value: object) -> bool:
        return isinstance(value, list) and all(
            isinstance(folder, dict) and is_str(folder.get("uri")) and is_str(folder.get("name"))
            for folder in value
        )

    optional("processId", _is_int)
    optional("clientInfo", is_client_info)
    optional("locale", is_str)
    optional("rootPath", is_str)
    optional("rootUri", is_str)
    optional("trace", lambda value: value in TRACE_VALUES)
    optional("workDoneToken", _is_id)
    optional("workspaceFolders", is_folders)


def _member(tree: dict[str, Any], path: str) -> Any:
    """The value at a dotted path of members; None when one on the way is missing or null."""
    value: Any = tree
    for name in path.split("."):
        if value is None:
            return None
        if not isinstance(value, dict):
            raise _Unsure
        value = value.get(name)
    return value


class _ClientSays(NamedTuple):
    """The client capabilities the answer depends on, as pygls' capability builder and
    `RelaviumProtocol.lsp_initialize` read them."""

    encodings: list[str] | None
    diagnostic: bool  # textDocument.diagnostic is there
    refresh: bool | None  # workspace.diagnostics.refreshSupport
    flags: dict[str, bool]  # FLAGS the client gives

    @classmethod
    def read(cls, capabilities: dict[str, Any]) -> _ClientSays:
        """_Unsure for a value of another type than LSP gives it: lsprotocol converts it (a
        string becomes a list of its characters) or refuses it."""
        encodings = _member(capabilities, "general.positionEncodings")
        if encodings is not None and not (
            isinstance(encodings, list) and all(isinstance(item, str) for item in encodings)
        ):
            raise _Unsure
        diagnostic = _member(capabilities, "textDocument.diagnostic")
        refresh = _member(capabilities, REFRESH)
        flags = {path: _member(capabilities, path) for path in FLAGS}
        if not isinstance(diagnostic, dict | None) or not isinstance(refresh, bool | None):
            raise _Unsure
        if not all(isinstance(value, bool | None) for value in flags.values()):
            raise _Unsure
        given = {path: value for path, value in flags.items() if value is not None}
        return cls(encodings, diagnostic is not None, refresh, given)

    @property
    def encoding(self) -> str:
        return next((item for item in self.encodings or () if item in ENCODINGS), DEFAULT_ENCODING)

    @property
    def pull(self) -> bool:
        return self.diagnostic and self.refresh is True

    def minimal_capabilities(self) -> dict[str, Any]:
        """Client capabilities with only these members."""
        minimal: dict[str, Any] = {}
        if self.encodings is not None:
            put_path(minimal, "general.positionEncodings", self.encodings)
        if self.diagnostic:
            put_path(minimal, "textDocument.diagnostic", {})
        if self.refresh is not None:
            put_path(minimal, REFRESH, self.refresh)
        for path, value in self.flags.items():
            put_path(minimal, path, value)
        return minimal


def put_path(tree: dict[str, Any], path: str, value: Any) -> None:
    *parents, name = path.split(".")
    for parent in parents:
        tree = tree.setdefault(parent, {})
    tree[name] = value
