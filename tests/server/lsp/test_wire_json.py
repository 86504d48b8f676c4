"""Deeply nested JSON on the wire (issue 21, item 1): a message nested past `MAX_DEPTH` levels is
read with what lies deeper replaced by `TOO_DEEP`, and never kills `serve` (json.loads raised
RecursionError at ~1,000 levels and the process exited 1 without an answer).

`parse_message` is checked against `json.loads` itself, exhaustively on the small cases and by
hypothesis on generated and mutated JSON; the behaviour over the real server's stdio.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.lsp.boot import wire_json
from server.lsp.boot.transport import dispatch
from server.lsp.boot.wire_json import MAX_DEPTH, TOO_DEEP, parse_message
from tests.server.lsp.test_serve_cli import read_message
from tests.server.lsp.test_transport import Raw, error_code, raw  # noqa: F401 (a fixture)

HOSTILE = 100_000  # levels: far past any recursion limit


def nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


def depth_of(value: Any) -> int:
    """Levels of arrays and objects, counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, list | dict):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in
                         (item.values() if isinstance(item, dict) else item))
    return deepest


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values, NaN equal to itself (json.loads reads `NaN`)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def outcome(read: Any, text: str) -> tuple[str, Any]:
    try:
        return "value", json.dumps(read(text), sort_keys=True)
    except ValueError:
        return "refused", None


# -- the reader ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '[1,2,{"a":[3]}]', ' {"a" : "b\\n", "c": [true,false,null,NaN,-Infinity,1e5,-0.5]} ',
        "[]", "{}", '"x"', "3", '{"a":1,"a":2}', '"[[[{"', '["\\"]["]',
        # refused by json.loads, so by the reader too
        "[1,]", '{"a":1,}', "[01]", '{"a" 1}', "[1 2]", "", " ", "[", "]", "{1:2}", '"\\x"',
        "[1]]", "[1] x", "\ufeff[]", "[-]", "[.5]", "[1.]", '{"a":}', "[1}", '{"a":1]', "[,1]",
        '"\x01"', "[-NaN]", "[nul]", "[truex]", "{,}", '{"a",1}', "[" + "9" * 5000 + "]",
    ],
)
def test_the_token_reader_accepts_and_reads_exactly_what_json_loads_does(text: str) -> None:
    assert outcome(wire_json._read_capped, text) == outcome(json.loads, text)
    assert outcome(parse_message, text) == outcome(json.loads, text)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.data())
def test_generated_and_mutated_json_reads_as_json_loads_reads_it(value: Any, data: Any) -> None:
    text = json.dumps(value)
    assert same(wire_json._read_capped(text), json.loads(text))
    # a few characters changed: the same verdict, the same value
    characters = list(text)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(characters)))
        characters[at:at] = data.draw(st.sampled_from(list('[]{},:"\\ 0-e.tnNI')))
    mutated = "".join(characters)
    assert outcome(wire_json._read_capped, mutated) == outcome(json.loads, mutated)


@settings(max_examples=60, deadline=None)
@given(st.integers(MAX_DEPTH - 2, 3 * MAX_DEPTH), st.lists(st.sampled_from(["[", '{"k":']),
                                                          min_size=1, max_size=5))
def test_what_lies_past_the_limit_is_replaced_and_the_rest_kept(
    depth: int, shape: list[str]
) -> None:
    openers = [shape[level % len(shape)] for level in range(depth)]
    closers = ["]" if opener == "[" else "}" for opener in reversed(openers)]
    value = parse_message("".join(openers) + '"leaf"' + "".join(closers))
    assert depth_of(value) == min(depth, MAX_DEPTH)
    leaf = value
    while isinstance(leaf, list | dict):
        leaf = leaf[0] if isinstance(leaf, list) else leaf["k"]
    assert leaf == ("leaf" if depth <= MAX_DEPTH else TOO_DEEP)


def test_a_hostile_depth_is_read_without_recursion() -> None:
    value = parse_message('{"a": ' + nested(HOSTILE) + ', "b": 2}')
    assert value["b"] == 2 and depth_of(value) == MAX_DEPTH
    with pytest.raises(ValueError):
        parse_message(nested(HOSTILE)[:-1])  # one closing bracket short


class Recorder:
    """A dispatcher that records what `dispatch` hands on and answers."""

    initialize_seen = True
    _shutdown = False

    def __init__(self) -> None:
        self.handled: list[Any] = []
        self.sent: list[Any] = []

    def structure_message(self, data: dict[str, Any]) -> Any:
        return data

    def handle_message(self, message: Any) -> None:
        self.handled.append(message)

    def _send_data(self, data: Any) -> None:
        self.sent.append(data)


REQUEST = '{"jsonrpc":"2.0","id":7,"method":"m","params":'
ODD_PIECES = st.sampled_from([
    "[", "]", "{", "}", ",", ":", '"', '"id"', '"method"', '"jsonrpc"', '"2.0"', "1", "null",
    "NaN", "\\", "\xff", " ", '{"jsonrpc":"2.0","id":1,"method":"m","params":',
])


@settings(max_examples=200, deadline=None)
@given(st.lists(ODD_PIECES, max_size=40), st.integers(0, 5_000))
def test_dispatch_never_raises_and_a_request_gets_one_answer_or_is_handled(
    pieces: list[str], depth: int
) -> None:
    """Odd bodies, wrapped in `depth` levels of a request's params (0: alone)."""
    body = "".join(pieces)
    if depth:
        body = REQUEST + '{"x":' + nested(depth, body) + "}}"
    protocol = Recorder()
    dispatch(protocol, body.encode("utf-8", "surrogatepass"))
    assert len(protocol.handled) + len(protocol.sent) <= 1
    assert all(depth_of(message) <= MAX_DEPTH for message in protocol.handled)
    if protocol.sent:
        assert protocol.sent[0]["error"]["code"] in (-32700, -32600, -32602)


# -- over the real server's stdio ---------------------------------------------------------------


def test_a_deep_request_is_refused_and_the_server_serves_on(raw: Raw) -> None:  # noqa: F811
    raw.initialize()
    write_raw(raw, '{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":'
              + nested(HOSTILE) + "}")
    write_raw(raw, nested(HOSTILE)[:-1])  # not JSON: its id cannot be known
    raw.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    answers = raw.answers_until(2)
    assert [(a["id"], error_code(a)) for a in answers] == [(1, -32602), (None, -32700), (2, None)]
    raw.send({"jsonrpc": "2.0", "method": "exit"})
    status, stderr = raw.finish()
    assert status == 0
    assert "RecursionError" not in stderr, stderr[-2000:]


def messages_until(client: Raw, request_id: int) -> list[dict[str, Any]]:
    """Every message the server sends, up to the answer to `request_id`."""
    assert client.process.stdout is not None
    seen = []
    while True:
        message = read_message(client.process.stdout)
        seen.append(message)
        if message.get("id") == request_id and "method" not in message:
            return seen


def shown_messages(messages: list[dict[str, Any]]) -> list[str]:
    return [m["params"]["message"] for m in messages if m.get("method") == "window/showMessage"]


def write_raw(client: Raw, body: str) -> None:
    client.write(b"Content-Length: %d\r\n\r\n%s" % (len(body.encode()), body.encode()))


def test_hostile_settings_in_initialize_are_reported_and_the_server_works(raw: Raw) -> None:  # noqa: F811
    # what VS Code sends for `"relavium.rules": [[[…]]]` in a workspace's .vscode/settings.json
    write_raw(raw, '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,'
                   '"capabilities":{},"initializationOptions":{"relavium":{"rules":'
                   + nested(HOSTILE) + ',"debounceMs":{"x":' + nested(HOSTILE) + "}}}}}")
    answers = messages_until(raw, 0)
    assert answers[-1]["result"]["serverInfo"]["name"] == "relavium-lsp"
    raw.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    raw.send({"jsonrpc": "2.0", "id": 1, "method": "shutdown"})
    shown = shown_messages(answers + messages_until(raw, 1))
    rules = [m for m in shown if "relavium.rules must map rule ids" in m]
    debounce = [m for m in shown if "relavium.debounceMs must be a number" in m]
    assert len(rules) == 1 and len(debounce) == 1, shown
    assert all(len(m) < 400 for m in shown), shown  # clipped, however deep or long the value
    raw.send({"jsonrpc": "2.0", "method": "exit"})
    status, stderr = raw.finish()
    assert status == 0 and "Traceback" not in stderr, stderr[-2000:]
    # answered before the server loaded, from the same capped reading the server then made
    assert "differ" not in stderr


def test_a_hostile_configuration_answer_is_reported_and_the_server_works(raw: Raw) -> None:  # noqa: F811
    raw.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"processId": None,
                         "capabilities": {"workspace": {"configuration": True}}}})
    messages_until(raw, 0)
    raw.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    assert raw.process.stdout is not None
    while (request := read_message(raw.process.stdout)).get("method") != "workspace/configuration":
        pass
    write_raw(raw, '{"jsonrpc":"2.0","id":' + json.dumps(request["id"])
              + ',"result":[{"rules":{"cycle":' + nested(HOSTILE) + "}}]}")
    # the warning comes once the answer is applied (a hang here is pytest-timeout's to end)
    while (shown := read_message(raw.process.stdout)).get("method") != "window/showMessage":
        pass
    message = shown["params"]["message"]
    assert "relavium.rules.cycle must be one of" in message and len(message) < 400, message
    raw.send({"jsonrpc": "2.0", "id": 1, "method": "shutdown"})
    messages_until(raw, 1)
    raw.send({"jsonrpc": "2.0", "method": "exit"})
    assert raw.finish()[0] == 0


@pytest.fixture(scope="module")
def serving() -> Any:
    client = Raw()
    # every refused body logs to stderr: unread, the pipe fills and the server blocks writing
    stderr = client.process.stderr
    assert stderr is not None
    threading.Thread(target=lambda: all(iter(stderr.readline, b"")), daemon=True).start()
    client.initialize()
    yield client
    client.process.kill()
    client.process.communicate(timeout=30)


@settings(max_examples=40, deadline=None)
@given(st.lists(ODD_PIECES, max_size=30), st.integers(0, 3_000), st.integers(1, 10**9))
def test_deep_and_odd_messages_over_stdio_leave_the_server_answering(
    serving: Raw, pieces: list[str], depth: int, barrier: int
) -> None:
    """Each body is followed by a request for no method: the server must still be there to
    refuse it (-32601), having answered the body at most once."""
    body = nested(depth, "".join(pieces))
    if depth % 2:
        body = REQUEST + '{"x":' + body + "}}"
    write_raw(serving, body)
    serving.send({"jsonrpc": "2.0", "id": -barrier, "method": "relavium/noSuchMethod",
                  "params": {}})
    answers = serving.answers_until(-barrier)
    assert error_code(answers[-1]) == -32601 and len(answers) <= 2, answers
    assert serving.process.poll() is None
