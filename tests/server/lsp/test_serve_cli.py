"""`relavium-lsp serve`: transports and their flags."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import pytest


def serve(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "server", "serve", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--tcp", "2087"], "--tcp expects HOST:PORT"),
        (["--tcp", "localhost:http"], "--tcp expects HOST:PORT"),
        (["--stdio", "--tcp", "127.0.0.1:2087"], "not allowed with argument"),
    ],
)
def test_bad_transport_flags_are_usage_errors(args: list[str], says: str) -> None:
    process = serve(*args)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 2 and says in stderr.decode()


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frame(stream: socket.socket) -> dict[str, object]:
    data = b""
    while b"\r\n\r\n" not in data:
        data += stream.recv(4096)
    header, _, body = data.partition(b"\r\n\r\n")
    length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
    while len(body) < length:
        body += stream.recv(4096)
    return json.loads(body[:length])  # type: ignore[no-any-return]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serves_over_tcp() -> None:
    port = free_port()
    process = serve("--tcp", f"127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.1)
        with connection:
            initialize = {"processId": None, "rootUri": None, "capabilities": {}}
            connection.sendall(
                frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize})
            )
            answer = read_frame(connection)
        assert answer["id"] == 1
        assert answer["result"]["serverInfo"]["name"] == "relavium-lsp"  # type: ignore[index]
    finally:
        process.kill()
        stdout, _ = process.communicate(timeout=30)
    assert stdout == b""  # over TCP, nothing at all goes to stdout


def read_message(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while (header := stream.readline()) not in (b"\r\n", b""):
        if header.lower().startswith(b"content-length:"):
            length = int(header.split(b":")[1])
    return json.loads(stream.read(length))  # type: ignore[no-any-return]


class RawSession:
    """A bare client over stdio, for what pytest-lsp's client cannot do: answer a server request
    with an error, or check how the process ends."""

    def __init__(self, capabilities: dict[str, Any]) -> None:
        self.process = serve("--stdio")
        self.send({"id": 1, "method": "initialize",
                   "params": {"processId": None, "capabilities": capabilities}})
        self.answer_to(1)
        self.send({"method": "initialized", "params": {}})

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(frame({"jsonrpc": "2.0", **message}))
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        return read_message(self.process.stdout)

    def answer_to(self, request_id: int) -> dict[str, Any]:
        while (message := self.receive()).get("id") != request_id or "method" in message:
            pass
        return message

    def open(self, path: Path, text: str) -> str:
        path.write_text(text, encoding="utf-8")
        document = {"uri": path.as_uri(), "languageId": "yaml", "version": 1, "text": text}
        self.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
        return document["uri"]  # type: ignore[return-value]

    def run(self, request_id: int, uri: str, node: str) -> None:
        arguments = [{"uri": uri, "node": node}]
        self.send({"id": request_id, "method": "workspace/executeCommand",
                   "params": {"command": "relavium.runWithSampleScope", "arguments": arguments}})

    def close(self) -> None:
        self.process.kill()
        self.process.communicate(timeout=30)


WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: raw
  nodes:
    - {{ id: start, type: input }}
    - {{ id: calc, type: transform, transform: '{expression}' }}
  edges:
    - {{ from: start, to: calc }}
"""


def test_shutdown_with_a_run_in_flight_answers_and_exits_cleanly(tmp_path: Path) -> None:
    session = RawSession(capabilities={})
    try:
        hang = WORKFLOW.format(expression="(() => { while (true) {} })()")
        session.run(2, session.open(tmp_path / "hang.relavium.yaml", hang), "calc")
        session.send({"id": 3, "method": "shutdown"})
        shutdown = session.answer_to(3)
        assert "error" not in shutdown and shutdown["result"] is None
        session.send({"method": "exit"})
        # stdin stays open, as a client waiting for the process would keep it
        assert session.process.wait(timeout=30) == 0
    finally:
        session.close()


def test_a_client_refusing_progress_still_gets_the_run(tmp_path: Path) -> None:
    session = RawSession(capabilities={"window": {"workDoneProgress": True}})
    try:
        text = WORKFLOW.format(expression="6 * 7")
        session.run(2, session.open(tmp_path / "progress.relavium.yaml", text), "calc")
        while (message := session.receive()).get("method") != "window/workDoneProgress/create":
            pass
        session.send({"id": message["id"], "error": {"code": -32603, "message": "no progress"}})
        answer = session.answer_to(2)
        assert answer["result"]["ok"] is True and answer["result"]["value"] == 42, answer
    finally:
        session.close()


def test_exit_without_shutdown_exits_1() -> None:
    session = RawSession(capabilities={})
    try:
        session.send({"method": "exit"})
        assert session.process.wait(timeout=30) == 1  # LSP: no shutdown request came first
    finally:
        session.close()


def test_a_late_cancellation_is_not_logged() -> None:
    """A `$/cancelRequest` for a request already answered is normal while typing: no stderr
    line (VS Code shows each one as an error)."""
    session = RawSession(capabilities={})
    try:
        session.send({"method": "$/cancelRequest", "params": {"id": 1}})
        session.send({"method": "$/cancelRequest", "params": {"id": 999}})
        session.send({"id": 2, "method": "shutdown"})
        session.answer_to(2)
        session.send({"method": "exit"})
        assert session.process.wait(timeout=30) == 0
        assert session.process.stderr is not None
        assert session.process.stderr.read().decode() == ""
    finally:
        session.close()
