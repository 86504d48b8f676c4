"""`relavium.createSampleScope {"uri"}`: write a sidecar `<stem>.samples.json` skeleton next to
the workflow (never over an existing one) and open it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.uris import from_fs_path, to_fs_path

from analysis.sample_scope import existing_sidecar, sidecar_path, sidecar_skeleton
from server.handlers import guarded
from server.language_server import CommandFailed, RelaviumLanguageServer

COMMAND = "relavium.createSampleScope"


def _failure(ls: RelaviumLanguageServer, message: str) -> dict[str, Any]:
    ls.show_message(f"Create sample scope: {message}", types.MessageType.Error)
    return {"created": False, "message": message}


def register(ls: RelaviumLanguageServer) -> None:
    @ls.command(COMMAND)
    @guarded(empty=lambda: {"created": False, "message": "internal error; see the server log"})
    async def create_sample_scope(ls: RelaviumLanguageServer, *args: Any) -> dict[str, Any]:
        argument = args[0] if args else None
        uri = argument.get("uri") if isinstance(argument, dict) else None
        if not isinstance(uri, str):
            return _failure(ls, 'expected one argument {"uri": "<workflow uri>"}')
        path = to_fs_path(uri)
        if path is None or not uri.startswith("file:"):
            return _failure(ls, "save the workflow to a file first; the sidecar sits next to it")
        try:
            result = await ls.command_analysis(uri)
        except CommandFailed as failure:
            return _failure(ls, str(failure))
        good = ls.last_good_snapshot(uri)
        workflow = result.workflow or (good.result.workflow if good is not None else None)
        if workflow is None:
            return _failure(ls, "fix the YAML syntax error first")
        existing = existing_sidecar(Path(path))
        target = existing or sidecar_path(Path(path))
        created = existing is None
        if created:
            try:
                target.write_text(sidecar_skeleton(workflow), encoding="utf-8")
            except OSError as error:
                return _failure(ls, f"cannot write {target} ({error.strerror or error})")
            ls.show_message(f"Created {target.name}", types.MessageType.Info)
        else:
            ls.show_message(f"{target.name} already exists; opened it", types.MessageType.Info)
        target_uri = str(from_fs_path(str(target)))
        if get_capability(ls.client_capabilities, "window.show_document.support", False):
            await ls.window_show_document_async(
                types.ShowDocumentParams(uri=target_uri, take_focus=True)
            )
        return {"created": created, "path": str(target), "uri": target_uri}
