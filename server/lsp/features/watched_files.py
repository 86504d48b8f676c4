"""Agent files and workflows changed on disk: the client watches them for the server (registered
dynamically, when it can be). Each agent file's change re-reads it in the workspace agent index
and re-diagnoses the open workflows of its project; every change reaches the workspace
diagnostics (features/workspace_diagnostics.py: a deleted file's are cleared). Without watchers
(a client that cannot register them), the index reads its project's files again whenever a
document of the project is opened or saved (`RelaviumLanguageServer.watching_agent_files`)."""

from __future__ import annotations

from concurrent.futures import Future

from lsprotocol import types

from server.lsp.document_uris import is_agent_uri
from server.lsp.features import workspace_diagnostics
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer

REGISTRATION_ID = "relavium-agent-files"
# Where a workflow's agents can come from: the project's `.relavium/` (agents, and the
# `*.agent.yaml` anywhere under it) and `$ref` files, which are agent files by name anywhere;
# and the workflows outside `.relavium/` (workspace diagnostics).
WATCHED_GLOBS = ("**/.relavium/**/*.{yaml,yml}", "**/*.agent.{yaml,yml}",
                 "**/*.relavium.{yaml,yml}")


def can_watch(ls: RelaviumLanguageServer) -> bool:
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    return bool(watched is not None and watched.dynamic_registration)


def watch_agent_files(ls: RelaviumLanguageServer) -> None:
    """Ask the client to report changes to agent files (after `initialized`). Not awaited: the
    answer carries nothing, and a connection closing meanwhile just drops the request."""
    if not can_watch(ls):
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in WATCHED_GLOBS])
    asked = ls.client_register_capability(types.RegistrationParams(registrations=[
        types.Registration(id=REGISTRATION_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                           register_options=options)]))

    def answered(future: Future[None]) -> None:
        if future.cancelled():
            return
        if future.exception() is None:
            ls.watching_agent_files = True
        else:
            # the index reads its files again when a document is opened or saved
            ls.log_warning("relavium-lsp: the client did not watch agent files "
                           f"({future.exception()})")

    asked.add_done_callback(answered)


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @guarded()
    def did_change_watched_files(ls: RelaviumLanguageServer,
                                 params: types.DidChangeWatchedFilesParams) -> None:
        # an open file's buffer is what the index holds for it until it is closed
        changed: dict[str, str | None] = {
            change.uri: None for change in params.changes
            if ls.document(change.uri) is None and is_agent_uri(change.uri)}
        ls.agent_files_changed(changed)
        workspace_diagnostics.of(ls).files_changed(params.changes)
