"""The project configuration in the server: the same file `check` reads (analysis.project.config),
found from the workspace folder, under the editor's settings.

Editor settings override the file key by key: `relavium.rules` entries win over the file's `rules`
entries for the same rule id, `relavium.sampleScope` over `sample-scope`. An invalid file is shown
as an error diagnostic on the file itself (the server then uses the editor settings alone) and
cleared once the file is fixed. A document the file's `exclude` covers gets no diagnostics, as
`check` skips it (`excluded_document`).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from analysis.project.config import ConfigError, ProjectConfig, find_config, load_config
from server.lsp.settings import Settings

# tomllib says where a syntax error is in its message; a bad key is found by its name.
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def load_for(root: str | None) -> tuple[ProjectConfig | None, Path | None, ConfigError | None]:
    """(the configuration, its file, the error that made it unusable) for a workspace folder."""
    found = find_config(Path(root)) if root else None
    if found is None:
        return None, None, None
    try:
        return load_config(found), found, None
    except ConfigError as error:
        return None, found, error


def excluded_document(project: ProjectConfig | None, uri: str) -> bool:
    """Whether the file behind `uri` is one the configuration's `exclude` / `extend-exclude`
    covers, as `check` would skip it when named (an unsaved document never is)."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return project is not None and path is not None and project.excludes(Path(path))


def merged(editor: Settings, project: ProjectConfig | None) -> Settings:
    if project is None:
        return editor
    sample_scope = editor.sample_scope or (
        str(project.sample_scope) if project.sample_scope else None)
    return dataclasses.replace(
        editor, rules={**project.rules, **editor.rules}, sample_scope=sample_scope)


def config_diagnostics(path: Path, error: ConfigError | None) -> types.PublishDiagnosticsParams:
    """The file's diagnostics: the error at the line it is about, or none (to clear it)."""
    uri = str(from_fs_path(str(path)))
    if error is None:
        return types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
    line, character = _where(path, error)
    position = types.Position(line=line, character=character)
    return types.PublishDiagnosticsParams(uri=uri, diagnostics=[types.Diagnostic(
        range=types.Range(start=position, end=position),
        message=f"{error}; relavium-lsp uses its defaults until this is fixed",
        severity=types.DiagnosticSeverity.Error,
        source="relavium-lsp",
        code="invalid-configuration",
    )])


def _where(path: Path, error: ConfigError) -> tuple[int, int]:
    message = str(error)
    at = _TOML_POSITION.search(message)
    if at:
        return int(at.group(1)) - 1, int(at.group(2)) - 1
    key = re.search(r"(?:rules\.([^\s]+) |'([^']+)' (?:in|must|holds))", message)
    if key is None:
        return 0, 0
    name = key.group(1) or key.group(2)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 0, 0
    for number, text in enumerate(lines):
        column = text.find(name)
        if column >= 0 and not text.lstrip().startswith("#"):
            return number, column
    return 0, 0
