"""`relavium-lsp serve`: transports and their flags."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

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
