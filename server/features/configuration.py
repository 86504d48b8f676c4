"""Settings from `workspace/configuration` (section `relavium`), fetched after `initialized`
and again on every `workspace/didChangeConfiguration`."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from server.handlers import guarded
from server.language_server import RelaviumLanguageServer
from server.settings import SECTION, section_of


async def fetch_settings(ls: RelaviumLanguageServer, pushed: Any = None) -> None:
    """Pull the section when the client answers `workspace/configuration`; otherwise use what a
    didChangeConfiguration notification pushed, if anything."""
    if get_capability(ls.client_capabilities, "workspace.configuration", False):
        answer = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
        raw = answer[0] if answer else None
        # A client without the section answers null: keep initializationOptions then.
        if raw is not None:
            ls.apply_settings(raw, "workspace/configuration")
    elif pushed is not None:
        ls.apply_settings(section_of(pushed), "workspace/didChangeConfiguration")


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.INITIALIZED)
    @guarded()
    async def initialized(ls: RelaviumLanguageServer, params: types.InitializedParams) -> None:
        ls.reload_project_config()
        await fetch_settings(ls)

    @ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @guarded()
    async def did_change_configuration(
        ls: RelaviumLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        ls.reload_project_config()
        await fetch_settings(ls, params.settings)
