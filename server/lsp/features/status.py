"""`relavium.status {"uri"?}`: what the server runs with, for an editor's health check
(`:checkhealth relavium_lsp`): its version, the settings in force, the editor's own settings and
what was wrong with them, the project configuration and, for a document, whether it is one the
server reads and whether the configuration excludes it.

Settings are the user's own choices and carry no secret, so they are answered as parsed; only
what the server understood is sent back, never the raw values it was given."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from pygls.uris import to_fs_path

from analysis.project.config import ProjectConfig
from analysis.project.kinds import file_kind
from server.lsp import project_settings
from server.lsp.documents import project_root
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.settings import RULE_OFF, Settings

COMMAND = "relavium.status"


def settings_json(settings: Settings) -> dict[str, Any]:
    """Settings in the shape the editor writes them (`relavium.*` keys)."""
    return {
        "debounceMs": settings.debounce_ms,
        "rules": {
            rule: RULE_OFF if level is None else level.label
            for rule, level in sorted(settings.rules.items())
        },
        "sampleScope": settings.sample_scope,
        "diagnostics": {"scope": settings.diagnostics_scope},
    }


def project_json(ls: RelaviumLanguageServer) -> dict[str, Any] | None:
    """The configuration file in force, or why there is none in force (None: no file found)."""
    config: ProjectConfig | None = ls.project_config
    if config is not None:
        return {
            "path": str(config.path) if config.path else None,
            "root": str(config.root),
            "exclude": list(config.exclude),
            "extendExclude": list(config.extend_exclude),
            "rules": {
                rule: RULE_OFF if level is None else level.label
                for rule, level in sorted(config.rules.items())
            },
            "sampleScope": str(config.sample_scope) if config.sample_scope else None,
        }
    # none in force: a file that does not load is reported as such (the server uses defaults)
    _, path, error = project_settings.load_for(project_root(ls.workspace))
    if path is None:
        return None
    return {"path": str(path), "error": str(error) if error else None}


def document_json(ls: RelaviumLanguageServer, uri: str) -> dict[str, Any]:
    path = to_fs_path(uri) if uri.startswith("file:") else None
    kind = file_kind(PurePath(path)) if path else None
    return {
        "uri": uri,
        "kind": kind.value if kind is not None else None,
        "open": ls.document(uri) is not None,
        "excluded": project_settings.excluded_document(ls.project_config, uri),
    }


def register(ls: RelaviumLanguageServer) -> None:
    @ls.command(COMMAND)
    @guarded(empty=lambda: {"message": "internal error; see the server log"})
    def status(ls: RelaviumLanguageServer, *args: Any) -> dict[str, Any]:
        argument = args[0] if args else None
        uri = argument.get("uri") if isinstance(argument, dict) else None
        answer: dict[str, Any] = {
            "version": ls.version,
            "settings": settings_json(ls.settings),
            "editorSettings": settings_json(ls.editor_settings),
            "settingsProblems": list(ls.settings_problems),
            "project": project_json(ls),
        }
        if isinstance(uri, str):
            answer["document"] = document_json(ls, uri)
        return answer
