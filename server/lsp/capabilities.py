"""Writing `boot/capabilities.json`, the `initialize` answer sent before the server is loaded
(`server.lsp.boot.early_initialize`), from the real server: `python -m server.lsp.capabilities`
after a feature or version change (tests/server/lsp/test_early_initialize.py fails until then)."""

from __future__ import annotations

import json
import sys
from typing import Any

from server.lsp.boot.early_initialize import CAPABILITIES_FILE, FLAGS, REFRESH, patched, put_path
from server.lsp.boot.transport import dispatch
from server.lsp.language_server import create_server
from server.lsp.protocol import RelaviumProtocol


def captured_server() -> tuple[RelaviumProtocol, list[dict[str, Any]]]:
    """A loaded server's protocol, and the list every message it sends is appended to."""
    sent: list[dict[str, Any]] = []

    class Capture:
        def write(self, data: bytes) -> None:
            sent.append(json.loads(data.partition(b"\r\n\r\n")[2]))

        def close(self) -> None:
            pass

    protocol = create_server().protocol
    protocol.set_writer(Capture())
    return protocol, sent


def server_answer(params: dict[str, Any]) -> dict[str, Any]:
    """The response the loaded server sends to `initialize` with these params."""
    protocol, sent = captured_server()
    dispatch(protocol, json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    ).encode())
    return next(message for message in sent if message.get("id") == 1)


def generated_snapshot() -> dict[str, Any]:
    """capabilities.json as the current server code makes it."""

    def capabilities(client: dict[str, Any]) -> dict[str, Any]:
        result = server_answer({"processId": None, "capabilities": client})["result"]
        answered: dict[str, Any] = result["capabilities"]
        answered.pop("positionEncoding")
        return answered

    def difference(changed: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
        """The patch that makes `base` into `changed` (see `patched`)."""
        assert base.keys() <= changed.keys(), "a patch can add members, not remove them"
        return {
            key: difference(value, base[key])
            if isinstance(value, dict) and isinstance(base.get(key), dict) else value
            for key, value in changed.items() if base.get(key) != value
        }

    def given(path: str, value: Any) -> dict[str, Any]:
        client: dict[str, Any] = {}
        put_path(client, path, value)
        return client

    base = capabilities({})
    return {
        "serverInfo": server_answer({"capabilities": {}})["result"]["serverInfo"],
        "capabilities": base,
        "when_pulling": difference(
            capabilities(patched(given("textDocument.diagnostic", {}), given(REFRESH, True))),
            base,
        ),
        "when_flag": {
            path: {json.dumps(value): difference(capabilities(given(path, value)), base)
                   for value in (False, True)}
            for path in FLAGS
        },
    }


def write_snapshot() -> None:
    with open(CAPABILITIES_FILE, "w", encoding="utf-8") as handle:
        json.dump(generated_snapshot(), handle, indent=2, sort_keys=True)
        handle.write("\n")


if __name__ == "__main__":
    write_snapshot()
    print(f"wrote {CAPABILITIES_FILE}", file=sys.stderr)
