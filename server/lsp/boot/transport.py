"""The JSON-RPC transport: reading framed messages and checking them before pygls sees them.

pygls' own reader allocates whatever `Content-Length` says (one header could kill the server with
a MemoryError), answers nothing for a request it cannot structure (the client waits forever), and
reads stdin on the thread pool that analyses run on. Here:

- `FrameReader` reads frames from a blocking byte stream on its own thread, with bounded memory:
  header lines are capped at `MAX_HEADER_LINE` bytes, a body over `MAX_FRAME_BYTES` is skipped in
  chunks (never allocated) and the stream stays in step; a frame whose headers are broken is
  dropped and the reader resynchronises on the next `Content-Length` header.
- `dispatch` answers every request that has an id exactly once: −32700 for a body that is not
  UTF-8 JSON, −32600 for anything that is not a JSON-RPC 2.0 request (batches included), −32602
  for params of the wrong shape, −32002 before `initialize`, −32600 after `shutdown`. Bodies are
  read by `wire_json.parse_message`: nesting past its `MAX_DEPTH` is cut there, never fatal.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, NamedTuple, Protocol

from server.lsp.boot.wire_json import parse_message

if TYPE_CHECKING:
    # asyncio (like dataclasses) is left out: `relavium-lsp serve` reads its first frame with
    # this module before anything else is imported (server.lsp.boot.early_initialize)
    import asyncio

logger = logging.getLogger("relavium-lsp")

MAX_FRAME_BYTES = 64 * 1024 * 1024
MAX_HEADER_LINE = 8 * 1024
_SKIP_CHUNK = 1024 * 1024
_HEADER = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:[ \t]*(.*?)[ \t]*(?:\r\n|\n)?")
_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002


class Dispatcher(Protocol):
    """What `dispatch` hands checked messages to and answers errors through: pygls' protocol
    as the loaded server has it (`server.lsp.protocol.RelaviumProtocol`)."""

    # set by `dispatch` when initialize arrives: requests before it are refused
    initialize_seen: bool
    _shutdown: bool  # pygls' flag: `shutdown` was handled

    def structure_message(self, data: dict[str, Any], /) -> Any: ...

    def handle_message(self, message: Any, /) -> Any: ...

    def _send_data(self, data: Any, /) -> Any: ...  # pygls' writer adds the framing


class Dropped(NamedTuple):
    """A frame the reader could not deliver, with why (logged; it cannot be answered)."""

    reason: str


class FrameReader:
    """Reads LSP frames (`Content-Length: N` headers, a blank line, N bytes) from a blocking
    binary stream. `next()` returns a body, a `Dropped`, or None at the end of the stream."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        # a header line found glued to the end of garbage, to start the next frame with
        self._carried: bytes | None = None

    def _line(self) -> bytes:
        if self._carried is not None:
            line, self._carried = self._carried, None
            return line
        return self.stream.readline(MAX_HEADER_LINE)

    def next(self) -> bytes | Dropped | None:
        lengths: set[bytes] = set()
        seen_header = False
        while True:
            line = self._line()
            if not line:
                return None if not seen_header else Dropped("the stream ended inside a header")
            if line in (b"\r\n", b"\n"):
                if not seen_header:
                    continue  # stray blank lines between frames
                break
            # A frame's headers may follow garbage (a body without its headers, a line over the
            # cap) on the same line when the garbage had no line break.
            found = _CONTENT_LENGTH.search(line, 1)
            header = _HEADER.fullmatch(line) if found is None else None
            if header is None:
                if found is not None:
                    self._carried = line[found.start():]
                if seen_header:
                    return Dropped("a header line was malformed; the frame was skipped")
                if found is None:
                    logger.warning("ignored %d bytes outside any frame", len(line))
                continue
            seen_header = True
            if header.group(1).lower() == b"content-length":
                lengths.add(header.group(2))
        # Without one clear length the body's end is unknown: its bytes are read as garbage
        # until the next frame's headers.
        if len(lengths) != 1:
            problem = "no Content-Length header" if not lengths else "conflicting Content-Lengths"
            return Dropped(f"a frame had {problem} and was skipped")
        value = lengths.pop()
        if not value.isdigit():
            return Dropped(f"a frame's Content-Length {value[:40]!r} is not a byte count")
        length = int(value)
        if length > MAX_FRAME_BYTES:
            skipped = self._skip(length)
            return Dropped(
                f"a message of {length} bytes exceeds the {MAX_FRAME_BYTES // 2**20} MiB maximum; "
                f"{skipped} bytes were skipped"
            )
        body = self.stream.read(length)
        if len(body) < length:
            return None
        return body

    def _skip(self, length: int) -> int:
        skipped = 0
        while skipped < length:
            chunk = self.stream.read(min(_SKIP_CHUNK, length - skipped))
            if not chunk:
                break
            skipped += len(chunk)
        return skipped


def stdin_frames() -> FrameReader:
    """A frame reader on the process's stdin."""
    # A file object of its own: the reading thread is blocked in it when the process exits, and
    # interpreter shutdown aborts on a `sys.stdin` whose lock a thread holds.
    return FrameReader(open(sys.stdin.fileno(), "rb", closefd=False))


class FramePump:
    """Frames from a daemon thread of their own: analyses on pygls' thread pool never delay
    reading the next message (and a blocked read never keeps the process from exiting).

    It may start before the server has loaded (`serve` starts it once `initialize` is
    answered): until `attach`, frames wait in a backlog and each is shown to `early`, on this
    thread, so the server can act on one (a large document opened) while it loads."""

    def __init__(self, reader: FrameReader, first: bytes | Dropped | None = None) -> None:
        self._reader = reader
        # `first`, a frame read from `reader` before (None: none), comes out first
        self._backlog: list[bytes | Dropped | None] = [first] if first is not None else []
        self._lock = threading.Lock()
        self._target: tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]] | None = None
        self._early: Callable[[bytes], None] | None = None
        self._started = False

    def start(self, early: Callable[[bytes], None] | None = None) -> None:
        """Start reading (once); `early` sees each frame read before `attach`."""
        if self._started:
            return
        self._started, self._early = True, early
        threading.Thread(target=self._pump, name="lsp-reader", daemon=True).start()

    def attach(self, loop: asyncio.AbstractEventLoop) -> asyncio.Queue[bytes | Dropped | None]:
        """The frames, the backlog first, as a queue of `loop` (called on it); `early` sees no
        frame after this."""
        import asyncio

        queue: asyncio.Queue[bytes | Dropped | None] = asyncio.Queue()
        self.start()
        with self._lock:
            for frame in self._backlog:
                queue.put_nowait(frame)
            self._backlog = []
            self._target = (loop, queue)
        return queue

    def _pump(self) -> None:
        while True:
            try:
                frame = self._reader.next()
            except (OSError, ValueError) as error:  # stdin closed under us
                logger.warning("reading the client's messages failed: %s", error)
                frame = None
            with self._lock:
                target = self._target
                if target is None:
                    self._backlog.append(frame)
                    # under the lock: nothing is acted on early once the server has the frames
                    if isinstance(frame, bytes) and self._early is not None:
                        self._early_look(frame)
            if target is not None:
                loop, queue = target
                try:
                    loop.call_soon_threadsafe(queue.put_nowait, frame)
                except RuntimeError:  # the loop is closed: the server exited while this read
                    return
            if frame is None:
                return

    def _early_look(self, frame: bytes) -> None:
        assert self._early is not None
        try:
            self._early(frame)
        except Exception:  # only ever a head start: the loaded server handles the frame itself
            logger.exception("acting early on a message failed")


async def serve(
    protocol: Dispatcher,
    frames: asyncio.Queue[bytes | Dropped | None],
    stop: threading.Event,
    report: Callable[[str], None],
) -> None:
    """Handle frames until the stream ends or the server stops."""
    while not stop.is_set():
        frame = await frames.get()
        if frame is None:
            logger.info("the client closed the stream")
            return
        if isinstance(frame, Dropped):
            logger.error("%s", frame.reason)
            report(frame.reason)
            continue
        dispatch(protocol, frame)


def _valid_id(message: dict[str, Any]) -> bool:
    identifier = message.get("id")
    return isinstance(identifier, str) or (
        isinstance(identifier, int) and not isinstance(identifier, bool)
    )


def _answer_error(
    protocol: Dispatcher, identifier: int | str | None, code: int, message: str
) -> None:
    logger.warning("answered %s with error %d: %s", identifier, code, message)
    protocol._send_data(
        {"jsonrpc": "2.0", "id": identifier, "error": {"code": code, "message": message}}
    )


def dispatch(protocol: Dispatcher, body: bytes) -> None:
    """Check one message and hand it to pygls, or answer it with the JSON-RPC error it earns."""
    try:
        message = parse_message(body.decode("utf-8"))
    except UnicodeDecodeError:
        _answer_error(protocol, None, PARSE_ERROR, "the message is not UTF-8")
        return
    except ValueError as error:
        _answer_error(protocol, None, PARSE_ERROR, f"the message is not JSON ({error})")
        return
    if isinstance(message, list):
        _refuse_batch(protocol, message)
        return
    if not isinstance(message, dict):
        _answer_error(protocol, None, INVALID_REQUEST, "a message must be a JSON object")
        return
    problem = _request_problem(protocol, message)
    if problem is not None:
        code, text = problem
        if "method" in message and "id" not in message:
            logger.warning("ignored a notification: %s", text)  # notifications get no answer
        elif "method" not in message and ("result" in message or "error" in message):
            # a response: answering it could start an error ping-pong with the client
            logger.warning("ignored a response: %s", text)
        else:
            _answer_error(protocol, message["id"] if _valid_id(message) else None, code, text)
        return
    if message.get("params", ...) is None:
        del message["params"]  # `"params": null` means none, as an omitted member does
    try:
        structured = protocol.structure_message(message)
    except Exception:  # pygls logged the details; its type names are no use to the client
        if "id" in message and "method" in message:
            _answer_error(
                protocol, message["id"], INVALID_PARAMS,
                f"the params of {message['method']} do not have the shape the method takes",
            )
        return
    if isinstance(message.get("method"), str) and message["method"] == "initialize":
        protocol.initialize_seen = True
    protocol.handle_message(structured)


def _refuse_batch(protocol: Dispatcher, batch: list[Any]) -> None:
    text = "batches are not part of LSP; send each message on its own"
    requests = [m for m in batch if isinstance(m, dict) and "method" in m and _valid_id(m)]
    for request in requests:
        _answer_error(protocol, request["id"], INVALID_REQUEST, text)
    if not requests:
        _answer_error(protocol, None, INVALID_REQUEST, text)


def _request_problem(
    protocol: Dispatcher, message: dict[str, Any]
) -> tuple[int, str] | None:
    """Why the message cannot be handled, as (code, text), or None."""
    if "id" in message and not _valid_id(message):
        return INVALID_REQUEST, "an id must be an integer or a string"
    method = message.get("method")
    if "method" in message and not isinstance(method, str):
        return INVALID_REQUEST, "method must be a string"
    if method is None and "id" not in message:
        return INVALID_REQUEST, "a message needs a method or an id"
    if message.get("jsonrpc") != "2.0":
        return INVALID_REQUEST, 'the message must say "jsonrpc": "2.0"'
    if method is None:
        return None  # a response to one of our requests
    params = message.get("params")
    if params is not None and not isinstance(params, dict | list):
        return INVALID_PARAMS, "params must be an object or an array"
    if method in ("exit", "initialize"):
        return None
    if not protocol.initialize_seen:
        if "id" in message:
            return SERVER_NOT_INITIALIZED, f"{method} came before initialize"
        return INVALID_REQUEST, f"{method} came before initialize"
    if protocol._shutdown and "id" in message:
        return INVALID_REQUEST, f"{method} came after shutdown"
    return None

