"""Settings from `workspace/configuration` (section `relavium`), fetched after `initialized`
and again on every `workspace/didChangeConfiguration`.

Diagnostics wait for the first answer (`ls.settings_settled`, bounded): answering with the
defaults first would show, for as long as the user does not type, rules their settings turn off.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from server.lsp.features import workspace_diagnostics
from server.lsp.features.watched_files import watch_agent_files
from server.lsp.handlers import guarded
from server.lsp.language_server import SETTINGS_WAIT_SECONDS, RelaviumLanguageServer
from server.lsp.settings import SECTION, section_of


async def fetch_settings(ls: RelaviumLanguageServer, pushed: Any = None) -> None:
    """Pull the section when the client answers `workspace/configuration`; otherwise use what a
    didChangeConfiguration notification pushed, if anything."""
    raw, source = None, ""
    if get_capability(ls.client_capabilities, "workspace.configuration", False):
        raw, source = await _configuration_answer(ls), "workspace/configuration"
    elif pushed is not None:
        raw, source = section_of(pushed), "workspace/didChangeConfiguration"
    # A client without the section answers null: keep initializationOptions then.
    if raw is not None:
        ls.settings_settled.set()
        ls.apply_settings(raw, source)
    else:
        _settle(ls)


async def _configuration_answer(ls: RelaviumLanguageServer) -> Any:
    request = asyncio.ensure_future(
        ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
    )
    done, _ = await asyncio.wait({request}, timeout=SETTINGS_WAIT_SECONDS)
    if not done and not ls.settings_settled.is_set():
        ls.log_warning(
            f"the client has not answered workspace/configuration in {SETTINGS_WAIT_SECONDS:g} s; "
            "diagnostics use the settings there are until it does"
        )
        _settle(ls)
    try:
        answer = await request
    except Exception as error:  # an error answer, or the connection closing
        ls.log_warning(f"workspace/configuration failed ({error}); keeping the settings there are")
        return None
    return answer[0] if answer else None


def _settle(ls: RelaviumLanguageServer) -> None:
    """Stop holding diagnostics back: send them with the settings the server has now."""
    if not ls.settings_settled.is_set():
        ls.settings_settled.set()
        ls.settings_changed()


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.INITIALIZED)
    @guarded()
    async def initialized(ls: RelaviumLanguageServer, params: types.InitializedParams) -> None:
        ls.reload_project_config()
        watch_agent_files(ls)
        workspace_diagnostics.of(ls).start()  # in the background: requests are answered meanwhile
        await fetch_settings(ls)

    @ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @guarded()
    async def did_change_configuration(
        ls: RelaviumLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        ls.reload_project_config()
        await fetch_settings(ls, params.settings)
