"""`initialize` answered before the server is loaded (server/lsp/boot/early_initialize.py, issue 12
target 7): the early answer is exactly the loaded server's, for real client profiles and every
client capability pygls reads; a request it cannot answer exactly is left to the loaded server; the
answer is sent before pygls, lsprotocol or the analysis are imported, and only once."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import pytest
from pygls.protocol import default_converter

from server.lsp.boot import early_initialize
from server.lsp.boot.early_initialize import EarlyAnswer, early_answer
from server.lsp.boot.transport import dispatch
from server.lsp.capabilities import captured_server, generated_snapshot, server_answer
from tests.conftest import REPO_ROOT
from tests.server.conftest import CLIENT_PROFILES, profile_capabilities
from tests.server.lsp.test_serve_cli import frame, read_message

WAIT_SECONDS = 60


def initialize(params: Any, request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def body(message: Any) -> bytes:
    return json.dumps(message).encode()


def test_capabilities_json_is_what_the_server_answers() -> None:
    with open(early_initialize.CAPABILITIES_FILE, encoding="utf-8") as handle:
        stored = json.load(handle)
    assert stored == generated_snapshot(), (
        "server/lsp/boot/capabilities.json is out of date: run `python -m server.lsp.capabilities`"
    )


def profile(name: str) -> dict[str, Any]:
    raw: dict[str, Any] = default_converter().unstructure(profile_capabilities(name))
    return raw


PULL = {"textDocument": {"diagnostic": {}}, "workspace": {"diagnostics": {"refreshSupport": True}}}
# What pygls' capability builder reads but this server's features make no use of: they must not
# change the answer (if a feature starts to, this fails and early_initialize must learn it).
UNUSED_BY_THE_SERVER = {
    "textDocument": {"synchronization": {"willSave": True, "willSaveWaitUntil": True}},
    "notebookDocument": {"synchronization": {}},
    "workspace": {"fileOperations": {
        name: True for name in ("willCreate", "didCreate", "willDelete", "didDelete",
                                "willRename", "didRename")
    }},
}
CLIENTS: dict[str, dict[str, Any]] = {
    **{name: profile(name) for name in CLIENT_PROFILES},
    "none": {},
    "pull": PULL,
    "diagnostic without refresh": {"textDocument": {"diagnostic": {}}},
    "refresh without diagnostic": {"workspace": {"diagnostics": {"refreshSupport": True}}},
    "refresh false": {**PULL, "workspace": {"diagnostics": {"refreshSupport": False}}},
    "null sections": {"general": None, "textDocument": None, "workspace": None},
    "null members": {"textDocument": {"diagnostic": None, "rename": None},
                     "workspace": {"diagnostics": {"refreshSupport": None}}},
    "prepare rename": {"textDocument": {"rename": {"prepareSupport": True}}},
    "no prepare rename": {"textDocument": {"rename": {"prepareSupport": False}}},
    "pull and prepare rename": {
        "textDocument": {"diagnostic": {}, "rename": {"prepareSupport": True}},
        "workspace": {"diagnostics": {"refreshSupport": True}},
    },
    "unused by the server": UNUSED_BY_THE_SERVER,
    "will save false": {"textDocument": {
        "synchronization": {"willSave": False, "willSaveWaitUntil": True}, "diagnostic": {}}},
    "unknown members": {"experimental": {"x": 1}, "madeUp": {"deep": [1, 2]}},
    **{
        f"encodings {encodings}": {"general": {"positionEncodings": encodings}}
        for encodings in (["utf-8"], ["utf-32", "utf-16"], ["utf-16", "utf-8"], [],
                          ["utf-99"], ["UTF-8", "utf-32"], None)
    },
}


@pytest.mark.parametrize("client", list(CLIENTS), ids=list(CLIENTS))
def test_the_early_answer_is_the_servers(client: str) -> None:
    params = {"processId": 4242, "rootUri": "file:///tmp/ŵörkspace",
              "capabilities": CLIENTS[client], "clientInfo": {"name": "test", "version": "1"},
              "locale": "de", "trace": "off",
              "workspaceFolders": [{"uri": "file:///tmp/ŵörkspace", "name": "ŵ"}],
              "initializationOptions": {"relavium": {"debounceMs": "not a number"}}}
    answered = early_answer(body(initialize(params, request_id="a")))
    assert answered is not None
    assert answered.request_id == "a"
    assert answered.result == server_answer(params)["result"]
    # what the server falls back to when the client's full capabilities do not structure
    assert server_answer({**params, "capabilities": answered.capabilities})["result"] == (
        answered.result
    )


@pytest.mark.parametrize(
    "message",
    [
        # not an initialize request the loaded server would answer with a result
        b"not json",
        b'"initialize"',
        initialize({"capabilities": {}}) | {"jsonrpc": "1.0"},
        initialize({"capabilities": {}}) | {"method": "shutdown"},
        initialize({"capabilities": {}}, request_id=None),
        initialize({"capabilities": {}}, request_id=True),
        initialize({"capabilities": {}}, request_id=1.5),
        {"jsonrpc": "2.0", "method": "initialize", "params": {"capabilities": {}}},
        initialize(None),
        initialize([{}]),
        initialize({}),
        initialize({"capabilities": []}),
        # members lsprotocol converts (a string's characters as a list, any value as a bool) or
        # refuses: only the loaded server knows what it makes of them
        initialize({"capabilities": {"general": {"positionEncodings": "utf-8"}}}),
        initialize({"capabilities": {"general": {"positionEncodings": [8]}}}),
        initialize({"capabilities": {"general": []}}),
        initialize({"capabilities": {"textDocument": {"rename": {"prepareSupport": "yes"}}}}),
        initialize({"capabilities": {"textDocument": {"rename": 5}}}),
        initialize({"capabilities": {"textDocument": {"synchronization": {"willSave": "no"}}}}),
        initialize({"capabilities": {"textDocument": {"diagnostic": True}}}),
        initialize({"capabilities": {"workspace": {"diagnostics": {"refreshSupport": 1}}}}),
        initialize({"capabilities": {}, "processId": "12"}),
        initialize({"capabilities": {}, "processId": True}),
        initialize({"capabilities": {}, "rootUri": 5}),
        initialize({"capabilities": {}, "rootPath": ["/"]}),
        initialize({"capabilities": {}, "locale": 1}),
        initialize({"capabilities": {}, "trace": "loud"}),
        initialize({"capabilities": {}, "workDoneToken": 1.5}),
        initialize({"capabilities": {}, "clientInfo": {}}),
        initialize({"capabilities": {}, "clientInfo": {"name": "x", "version": 2}}),
        initialize({"capabilities": {}, "workspaceFolders": [{"uri": 1, "name": "x"}]}),
        initialize({"capabilities": {}, "workspaceFolders": {"uri": "file:///", "name": "x"}}),
    ],
)
def test_what_it_cannot_answer_exactly_is_left_to_the_server(message: Any) -> None:
    assert early_answer(message if isinstance(message, bytes) else body(message)) is None


def test_without_capabilities_json_the_loaded_server_answers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    request = body(initialize({"capabilities": {}}))
    assert early_answer(request) is not None
    snapshot = tmp_path / "capabilities.json"
    monkeypatch.setattr(early_initialize, "CAPABILITIES_FILE", str(snapshot))
    assert early_answer(request) is None  # missing
    for broken in ("", "{}", '{"capabilities": {}}', "[1]"):
        snapshot.write_text(broken)
        assert early_answer(request) is None


def test_the_server_does_not_answer_twice_and_reports_a_stale_answer() -> None:
    params: dict[str, Any] = {"capabilities": {}}
    answered = early_answer(body(initialize(params)))
    assert answered is not None
    protocol, sent = captured_server()
    protocol.early = answered
    dispatch(protocol, body(initialize(params)))
    assert sent == [] and protocol.early is None

    stale = EarlyAnswer(1, {"capabilities": {"hoverProvider": False}}, {})
    protocol, sent = captured_server()
    protocol.early = stale
    dispatch(protocol, body(initialize(params)))
    assert [message.get("id") for message in sent] == [None]  # a log message, no answer
    assert sent[0]["method"] == "window/logMessage" and "differ" in sent[0]["params"]["message"]
    # the next request with that id is answered as usual
    dispatch(protocol, body({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}))
    assert sent[-1] == {"jsonrpc": "2.0", "id": 1, "result": None}


# Imported only after the gate file exists: what the early answer must not need.
HEAVY = ("lsprotocol", "pygls", "cattrs", "attrs", "attr", "analysis", "sandbox", "yaml",
         "tree_sitter", "tree_sitter_javascript", "quickjs")
GATED_SERVER = """
import importlib.abc, os, sys, time

class Gate(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in HEAVY and not os.path.exists(GATE):
            print(f"gate: {name} waits", file=sys.stderr, flush=True)
            while not os.path.exists(GATE):
                time.sleep(0.01)
        return None

HEAVY, GATE = set(sys.argv[1].split(",")), sys.argv[2]
sys.meta_path.insert(0, Gate())
from server.cli.main import main
sys.exit(main(["serve", "--stdio"]))
"""


class Messages:
    """What the server writes, from reader threads, so a test can wait for it with a timeout."""

    def __init__(self, stdout: IO[bytes], stderr: IO[bytes]) -> None:
        self.protocol: queue.Queue[dict[str, Any]] = queue.Queue()
        self.logs: queue.Queue[str] = queue.Queue()
        self.log_lines: list[str] = []
        threading.Thread(target=self._read_protocol, args=(stdout,), daemon=True).start()
        self.log_reader = threading.Thread(target=self._read_logs, args=(stderr,), daemon=True)
        self.log_reader.start()

    def _read_protocol(self, stream: IO[bytes]) -> None:
        while True:
            try:
                self.protocol.put(read_message(stream))
            except ValueError:  # the stream ended
                return

    def _read_logs(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.log_lines.append(line.decode())
            self.logs.put(line.decode())

    def next(self) -> dict[str, Any]:
        try:
            return self.protocol.get(timeout=WAIT_SECONDS)
        except queue.Empty:
            raise AssertionError(f"no message from the server in {WAIT_SECONDS} s") from None

    def until(self, predicate: Any) -> list[dict[str, Any]]:
        """Every message up to and including the first that `predicate` accepts."""
        seen = [self.next()]
        while not predicate(seen[-1]):
            seen.append(self.next())
        return seen

    def wait_for_log(self, text: str) -> None:
        while text not in self.logs.get(timeout=WAIT_SECONDS):
            pass


class GatedServer:
    """`relavium-lsp serve --stdio` whose heavy imports wait until the gate file exists."""

    def __init__(self, gate: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", GATED_SERVER, ",".join(HEAVY), str(gate)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        self.messages = Messages(self.process.stdout, self.process.stderr)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(frame({"jsonrpc": "2.0", **message}))
        self.process.stdin.flush()

    def finish(self) -> tuple[list[dict[str, Any]], str]:
        """Shut the server down; (the messages up to the shutdown answer, its stderr)."""
        self.send({"id": 99, "method": "shutdown"})
        seen = self.messages.until(is_answer(99))
        self.send({"method": "exit"})
        self.process.wait(timeout=WAIT_SECONDS)
        self.messages.log_reader.join(timeout=WAIT_SECONDS)
        stderr = "".join(self.messages.log_lines)
        assert self.process.returncode == 0, stderr
        return seen, stderr

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=WAIT_SECONDS)


def is_answer(request_id: int) -> Any:
    return lambda message: message.get("id") == request_id and "method" not in message


def test_initialize_is_answered_before_anything_heavy_is_imported(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    server = GatedServer(gate)
    try:
        params = {"processId": None, "capabilities": profile("vscode")}
        server.send({"id": 1, "method": "initialize", "params": params})
        # the gate is shut: a server that needed a heavy module to answer would hang here
        answer = server.messages.next()
        assert answer["id"] == 1 and "result" in answer
        # ... and the gate works: the server is held at its first heavy import
        server.messages.wait_for_log("gate: ")
        gate.touch()
        assert answer["result"] == server_answer(params)["result"]
        server.send({"method": "initialized", "params": {}})
        server.send({"id": 2, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": "file:///tmp/x.relavium.yaml"},
            "position": {"line": 0, "character": 0}}})
        seen = server.messages.until(is_answer(2))
        later, stderr = server.finish()
    finally:
        server.kill()
    assert not [message for message in seen + later if message.get("id") == 1]  # answered once
    assert "differ" not in stderr


def test_capabilities_that_do_not_structure_after_the_early_answer(tmp_path: Path) -> None:
    """The answer is out when the loaded server finds the capabilities malformed: it goes on with
    the ones the answer depended on, says so, and serves."""
    gate = tmp_path / "gate"
    gate.touch()
    server = GatedServer(gate)
    try:
        capabilities = {**PULL, "general": {"positionEncodings": ["utf-32"]},
                        "window": {"workDoneProgress": {"not": "a boolean"}},
                        "textDocument": {"diagnostic": {}, "hover": 5}}
        server.send({"id": 1, "method": "initialize",
                     "params": {"processId": None, "capabilities": capabilities}})
        answer = server.messages.next()
        assert answer["id"] == 1
        assert answer["result"]["capabilities"]["positionEncoding"] == "utf-32"
        assert "diagnosticProvider" in answer["result"]["capabilities"]
        server.send({"method": "initialized", "params": {}})
        server.send({"id": 2, "method": "textDocument/diagnostic", "params": {
            "textDocument": {"uri": "file:///tmp/x.relavium.yaml"}}})
        seen = server.messages.until(is_answer(2))
        later, stderr = server.finish()
    finally:
        server.kill()
    assert "result" in seen[-1]  # pull diagnostics work: the server believed the same answer
    logged = [message["params"]["message"] for message in seen + later
              if message.get("method") == "window/logMessage"]
    assert any("do not have the shape LSP gives them" in text for text in logged), logged
    assert not [message for message in seen + later if message.get("id") == 1]
    assert "differ" not in stderr


def test_messages_sent_with_initialize_in_one_write_are_all_handled(tmp_path: Path) -> None:
    """The frames the early reader buffered behind `initialize` reach the loaded server."""
    gate = tmp_path / "gate"
    gate.touch()
    server = GatedServer(gate)
    uri = (tmp_path / "a.relavium.yaml").as_uri()
    try:
        burst: list[dict[str, Any]] = [
            {"id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}},
            {"method": "initialized", "params": {}},
            {"method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": uri, "languageId": "yaml", "version": 1, "text": "name: [unclosed\n"}}},
        ]
        assert server.process.stdin is not None
        server.process.stdin.write(b"".join(frame({"jsonrpc": "2.0", **m}) for m in burst))
        server.process.stdin.flush()
        assert server.messages.next()["id"] == 1
        published = server.messages.until(
            lambda message: message.get("method") == "textDocument/publishDiagnostics")
        later, _ = server.finish()
    finally:
        server.kill()
    assert published[-1]["params"]["uri"] == uri and published[-1]["params"]["diagnostics"]
    assert not [message for message in published + later if message.get("id") == 1]
