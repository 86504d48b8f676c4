"""The JSON-RPC transport under adversarial input: bad frames never crash the server or leave a
request unanswered (issue 9, items 9 and 10).

The frame reader is tested on byte streams; the answers over the real server's stdio.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from server.lsp.boot.transport import MAX_FRAME_BYTES, Dropped, FrameReader
from tests.server.lsp.test_serve_cli import frame, read_message, serve


def frames_of(data: bytes) -> list[bytes | str]:
    """Every frame a reader delivers from `data`: bodies, or the reason a frame was dropped."""
    reader = FrameReader(io.BytesIO(data))
    out: list[bytes | str] = []
    while (item := reader.next()) is not None:
        out.append(item.reason if isinstance(item, Dropped) else item)
    return out


GOOD = b'{"a": 1}'
NEXT = b"Content-Length: 8\r\n\r\n" + GOOD


@pytest.mark.parametrize(
    ("data", "dropped"),
    [
        (b"Content-Length: -5\r\n\r\n", "is not a byte count"),
        (b"Content-Length: 12abc\r\n\r\n", "is not a byte count"),
        (b"Content-Length: 0x10\r\n\r\n", "is not a byte count"),
        (b"Content-Length: \r\n\r\n", "is not a byte count"),
        (b"Content-Length: 8\r\nContent-Length: 9\r\n\r\n", "conflicting Content-Lengths"),
        (b"Content-Type: application/vscode-jsonrpc\r\n\r\n", "no Content-Length"),
        # a header missing its blank line: the body is read as a header line
        (b"Content-Length: 8\r\n" + GOOD, "malformed"),
        (b"Content-Length: 8\r\n" + GOOD + b"\r\n", "malformed"),
    ],
)
def test_a_bad_frame_is_dropped_and_the_next_one_read(data: bytes, dropped: str) -> None:
    out = frames_of(data + NEXT)
    assert len(out) == 2 and dropped in str(out[0]) and out[1] == GOOD, out


@pytest.mark.parametrize(
    "garbage",
    [
        b"garbage without a line break",
        b"\x00\xff\xfe binary \r\n",
        b"x" * 100_000,  # longer than a header line may be
        b"\r\n\r\n\n",
        b"{\"jsonrpc\": \"2.0\"}",  # a body whose headers were lost
    ],
)
def test_garbage_between_frames_is_skipped(garbage: bytes) -> None:
    assert frames_of(NEXT + garbage + NEXT) == [GOOD, GOOD]


def test_duplicate_equal_lengths_and_other_headers_are_accepted() -> None:
    data = (b"content-length: 8\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
            b"Content-Length:8\r\n\r\n" + GOOD)
    assert frames_of(data) == [GOOD]


class CountingStream(io.RawIOBase):
    """A stream of `size` zero bytes that records the largest read asked of it."""

    def __init__(self, header: bytes, size: int) -> None:
        self.data = io.BytesIO(header)
        self.left = size
        self.largest = 0

    def readable(self) -> bool:
        return True

    def readline(self, limit: int | None = -1) -> bytes:
        return self.data.readline(limit)

    def read(self, n: int = -1) -> bytes:
        self.largest = max(self.largest, n)
        if self.data.tell() < len(self.data.getvalue()):
            return self.data.read(n)
        count = min(n, self.left)
        self.left -= count
        return bytes(count)


def test_an_oversized_body_is_skipped_without_being_allocated() -> None:
    size = MAX_FRAME_BYTES + 3 * 2**20
    stream = CountingStream(b"Content-Length: %d\r\n\r\n" % size, size)
    reader = FrameReader(stream)  # type: ignore[arg-type]
    dropped = reader.next()
    assert isinstance(dropped, Dropped) and f"{size} bytes were skipped" in dropped.reason
    assert stream.left == 0 and stream.largest <= 2**20
    assert reader.next() is None


def test_a_stream_ending_inside_a_frame_ends_reading() -> None:
    assert frames_of(b"Content-Length: 100\r\n\r\n{\"a\"") == []
    assert frames_of(b"Content-Length: 100\r\n") == ["the stream ended inside a header"]


# -- over the real server's stdio ---------------------------------------------------------------


class Raw:
    """A client that writes raw bytes to the server and reads its messages."""

    def __init__(self) -> None:
        self.process = serve("--stdio")

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: Any) -> None:
        self.write(frame(message))

    def answers_until(self, request_id: int) -> list[dict[str, Any]]:
        """Every response (not server requests/notifications) up to the one for `request_id`."""
        assert self.process.stdout is not None
        answers = []
        while True:
            message = read_message(self.process.stdout)
            if "method" in message:
                continue
            answers.append(message)
            if message.get("id") == request_id:
                return answers

    def initialize(self) -> None:
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"processId": None, "capabilities": {}}})
        self.answers_until(0)
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def finish(self) -> tuple[int, str]:
        """Close stdin; the exit status and stderr."""
        assert self.process.stdin is not None and self.process.stderr is not None
        if not self.process.stdin.closed:
            self.process.stdin.close()
        status = self.process.wait(timeout=60)
        return status, self.process.stderr.read().decode()


@pytest.fixture
def raw() -> Any:
    client = Raw()
    yield client
    if client.process.poll() is None:
        client.process.kill()
        client.process.communicate(timeout=30)


def error_code(answer: dict[str, Any]) -> int | None:
    return answer.get("error", {}).get("code")


def test_requests_before_initialize_are_refused_with_server_not_initialized(raw: Raw) -> None:
    raw.send({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
              "params": {"textDocument": {"uri": "file:///a.relavium.yaml"},
                         "position": {"line": 0, "character": 0}}})
    raw.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    raw.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {}})  # dropped
    answers = raw.answers_until(2)
    assert [(a["id"], error_code(a)) for a in answers] == [(1, -32002), (2, -32002)]
    raw.initialize()  # the server still initializes afterwards
    raw.send({"jsonrpc": "2.0", "id": 3, "method": "shutdown", "params": None})
    assert raw.answers_until(3) == [{"jsonrpc": "2.0", "id": 3, "result": None}]


HOVER = {"textDocument": {"uri": "file:///a.relavium.yaml"},
         "position": {"line": 0, "character": 0}}

# (message, id the answer carries, code)
BAD_REQUESTS: list[tuple[Any, Any, int]] = [
    ({"jsonrpc": "2.0", "id": 10, "method": "textDocument/hover", "params": "x"}, 10, -32602),
    ({"jsonrpc": "2.0", "id": 11, "method": "textDocument/hover", "params": 5}, 11, -32602),
    ({"jsonrpc": "2.0", "id": 12, "method": "textDocument/hover", "params": None}, 12, -32602),
    ({"jsonrpc": "2.0", "id": 13, "method": "textDocument/hover"}, 13, -32602),
    ({"jsonrpc": "2.0", "id": 14, "method": "textDocument/hover", "params": {"x": 1}}, 14, -32602),
    ({"id": 15, "method": "textDocument/hover", "params": HOVER}, 15, -32600),
    ({"jsonrpc": "1.0", "id": 16, "method": "textDocument/hover", "params": HOVER}, 16, -32600),
    ({"jsonrpc": "2.0", "id": 17, "method": 42, "params": HOVER}, 17, -32600),
    ({"jsonrpc": "2.0", "id": "s-18", "method": "textDocument/hover", "params": []}, "s-18",
     -32602),
    ({"jsonrpc": "2.0", "id": 19, "method": "no/suchMethod", "params": {}}, 19, -32601),
    # ids of types LSP does not allow are answered, with a null id (JSON-RPC 2.0, 5.1)
    ({"jsonrpc": "2.0", "id": 1.5, "method": "shutdown"}, None, -32600),
    ({"jsonrpc": "2.0", "id": True, "method": "shutdown"}, None, -32600),
    ({"jsonrpc": "2.0", "id": {"n": 1}, "method": "shutdown"}, None, -32600),
    ({"jsonrpc": "2.0", "id": [1], "method": "shutdown"}, None, -32600),
    ({"jsonrpc": "2.0", "id": None, "method": "shutdown"}, None, -32600),
    # not requests at all
    ([], None, -32600),
    ([{"jsonrpc": "2.0", "id": 20, "method": "shutdown"}], 20, -32600),  # a batch
    ("a string", None, -32600),
    (7, None, -32600),
    ({"jsonrpc": "2.0"}, None, -32600),
]


def test_every_bad_request_gets_exactly_one_error(raw: Raw) -> None:
    raw.initialize()
    for message, _, _ in BAD_REQUESTS:
        raw.send(message)
    raw.write(b"Content-Length: 4\r\n\r\n\xff\xfe{}")  # not UTF-8
    raw.write(b"Content-Length: 5\r\n\r\n{oops")  # not JSON
    # notifications with problems are dropped, never answered
    raw.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": "x"})
    raw.send({"method": "initialized", "params": {}})
    # responses are never answered, not even malformed ones
    raw.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse"}})
    raw.send({"id": 3, "result": None})
    raw.send({"jsonrpc": "2.0", "id": 4.5, "result": None})
    raw.send({"jsonrpc": "2.0", "id": 99, "method": "shutdown"})
    answers = raw.answers_until(99)
    expected = [(answer_id, code) for _, answer_id, code in BAD_REQUESTS]
    expected += [(None, -32700), (None, -32700), (99, None)]
    assert [(a["id"], error_code(a)) for a in answers] == expected
    # after shutdown a request is refused, and exit still works
    raw.send({"jsonrpc": "2.0", "id": 100, "method": "textDocument/hover", "params": HOVER})
    assert [(a["id"], error_code(a)) for a in raw.answers_until(100)] == [(100, -32600)]
    raw.send({"jsonrpc": "2.0", "method": "exit"})
    assert raw.process.wait(timeout=30) == 0


def test_an_oversized_frame_is_skipped_and_the_server_keeps_serving(raw: Raw) -> None:
    raw.initialize()
    size = MAX_FRAME_BYTES + 1
    raw.write(b"Content-Length: %d\r\n\r\n" % size)
    chunk = b" " * 2**20
    for _ in range(size // len(chunk)):
        raw.write(chunk)
    raw.write(b" " * (size % len(chunk)))
    raw.send({"jsonrpc": "2.0", "id": 5, "method": "shutdown"})
    assert raw.answers_until(5)[-1] == {"jsonrpc": "2.0", "id": 5, "result": None}
    raw.send({"jsonrpc": "2.0", "method": "exit"})
    status, stderr = raw.finish()
    assert status == 0 and "exceeds the 64 MiB maximum" in stderr


@pytest.mark.parametrize(
    "header",
    [
        b"Content-Length: 1000000000000\r\n\r\n",
        b"Content-Length: 99999999999999999999999999999999\r\n\r\n",
        b"Content-Length: 1e12\r\n\r\n",
        b"Content-Length: -1\r\n\r\n",
    ],
)
def test_one_bad_header_does_not_crash_the_server(raw: Raw, header: bytes) -> None:
    raw.write(header)
    raw.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"processId": None, "capabilities": {}}})
    status, stderr = raw.finish()
    # the stream ended (inside the skipped body or after the answer): a clean exit, with why
    assert status == 0, stderr
    assert "Traceback" not in stderr and "MemoryError" not in stderr
    assert "maximum" in stderr or "byte count" in stderr


def test_a_lost_frame_boundary_resynchronises(raw: Raw) -> None:
    # headers without their blank line, then a good frame glued to the orphaned body
    raw.write(b"Content-Length: 30\r\n" + b'{"jsonrpc": "2.0", "id": 7}' + frame(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "capabilities": {}}}))
    answers = raw.answers_until(1)
    assert answers[-1]["result"]["serverInfo"]["name"] == "relavium-lsp"


def test_the_server_exits_cleanly_when_stdin_closes_mid_frame(raw: Raw) -> None:
    raw.initialize()
    raw.write(b"Content-Length: 100\r\n\r\n{\"jsonrpc\"")
    status, stderr = raw.finish()
    assert status == 0 and "Traceback" not in stderr

