"""`relavium.createFiles {"uri", "title"}`: make the files a diagnostic's fix creates ("Create
agent `x`" on unknown-agent), which `code_actions` offers as this command. The fix is looked up
again in the document's current analysis by its title, so the client names which fix, never
what is written or where; each file is created inside the workspace folders only, never through
a symbolic link, never over anything (`analysis.project.new_files.create_new_file`), then
opened, and the workflows of its project are diagnosed again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.uris import from_fs_path

from analysis.diagnostics import Fix
from analysis.project.new_files import CreateRefused, create_new_file
from server.lsp.features.create_sample_scope import writable_roots
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer

COMMAND = "relavium.createFiles"


def command_for(uri: str, fix: Fix) -> types.Command:
    return types.Command(title=fix.title, command=COMMAND,
                         arguments=[{"uri": uri, "title": fix.title}])


def _failure(ls: RelaviumLanguageServer, message: str) -> dict[str, Any]:
    ls.show_message(f"relavium-lsp: {message}", types.MessageType.Error)
    return {"created": False, "message": message}


def register(ls: RelaviumLanguageServer) -> None:
    @ls.command(COMMAND)
    @guarded(empty=lambda: {"created": False, "message": "internal error; see the server log"})
    async def create_files(ls: RelaviumLanguageServer, *args: Any) -> dict[str, Any]:
        argument = args[0] if args else None
        uri = argument.get("uri") if isinstance(argument, dict) else None
        title = argument.get("title") if isinstance(argument, dict) else None
        if not isinstance(uri, str) or not isinstance(title, str):
            return _failure(ls, f'{COMMAND} expects {{"uri": "<document uri>", "title": '
                                '"<the fix\'s title>"}')
        snapshot = await ls.fresh_snapshot(uri)
        fixes = [fix for diagnostic in (snapshot.result.diagnostics if snapshot else [])
                 for fix in diagnostic.fixes if fix.creates and fix.title == title]
        if not fixes:
            return _failure(ls, "that fix no longer applies to the document; look at its "
                                "diagnostics again")
        roots = writable_roots(ls, Path(fixes[0].creates[0].base))
        created: list[str] = []
        for new in fixes[0].creates:
            try:
                path = create_new_file(Path(new.base), new.folders, new.name, new.text, roots,
                                       "open it instead")
            except CreateRefused as refused:
                return _failure(ls, str(refused))
            created.append(str(from_fs_path(str(path))))
        ls.agent_files_changed(dict.fromkeys(created))
        if get_capability(ls.client_capabilities, "window.show_document.support", False):
            for target in created:
                await ls.window_show_document_async(types.ShowDocumentParams(uri=target,
                                                                             take_focus=True))
        return {"created": True, "uris": created}
