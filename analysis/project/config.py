"""Project configuration: `[tool.relavium-lsp]` in `pyproject.toml`, or the same keys at the top
of `relavium-lsp.toml` / `.relavium-lsp.toml` (docs/configuration.md).

Contract: `find_config(start)` is the first such file walking up from `start` (in one folder,
`.relavium-lsp.toml`, then `relavium-lsp.toml`, then a `pyproject.toml` that has the table);
`load_config(path)` parses it strictly and raises `ConfigError` naming the file, the key and the
allowed values — the CLI exits 2 on it, the server shows it on the file and uses defaults. The
CLI and the server read the same file through these two functions.

Globs (`exclude`, `extend-exclude`) are gitignore-style patterns relative to the configuration
file's folder, matched without backtracking by `analysis.project.ignore_patterns` (a hostile
repository chooses them); a pattern git would never match is refused.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from analysis.checks.registry import RULES
from analysis.diagnostics import Diagnostic, Severity
from analysis.project.ignore_patterns import IgnorePatterns, invalid_patterns

CONFIG_FILES = (".relavium-lsp.toml", "relavium-lsp.toml", "pyproject.toml")
TOOL_TABLE = "relavium-lsp"
RULE_OFF = "off"
SEVERITY_NAMES = {severity.label: severity for severity in Severity}
ALLOWED_LEVELS = ", ".join([*SEVERITY_NAMES, RULE_OFF])
# Searched folders are pruned by these unless `exclude` replaces them (`extend-exclude` adds).
DEFAULT_EXCLUDE = ("node_modules/", "__pycache__/")
KEYS = ("exclude", "extend-exclude", "rules", "sample-scope")


class ConfigError(Exception):
    """An unreadable or invalid configuration file; the message names file, key and fix."""


@dataclass(frozen=True)
class ProjectConfig:
    """A configuration file's settings; without a file (`path` None), the defaults for `root`."""

    root: Path
    path: Path | None = None
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    # rule id → severity, or None when the rule is off
    rules: dict[str, Severity | None] = field(default_factory=dict)
    # the default sample-scope file, absolute (given relative to the configuration's folder)
    sample_scope: Path | None = None

    def excludes(self, path: Path, is_dir: bool = False) -> bool:
        """Whether `path` (absolute or relative to the working folder) is excluded; paths
        outside the configuration's folder never are."""
        relative = os.path.relpath(os.path.abspath(path), self.root)
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return False
        if relative == os.curdir:
            return False  # the root itself is never excluded (git never ignores it either)
        return self._excluder.ignores(Path(relative).as_posix(), is_dir)

    @cached_property
    def _excluder(self) -> IgnorePatterns:
        return IgnorePatterns([*self.exclude, *self.extend_exclude])


def _table(path: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    if path.name != "pyproject.toml":
        return data
    tool = data.get("tool")
    table = tool.get(TOOL_TABLE) if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else None


def _read(path: Path) -> dict[str, Any]:
    import tomllib  # imported only when a configuration file is found

    try:
        with path.open("rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    return data


def find_config(start: Path) -> Path | None:
    """The configuration file that governs `start` (a file or folder), or None."""
    folder = start.resolve()
    if not folder.is_dir():
        folder = folder.parent
    for candidate_folder in (folder, *folder.parents):
        for name in CONFIG_FILES:
            candidate = candidate_folder / name
            if not candidate.is_file():
                continue
            if name != "pyproject.toml":
                return candidate
            try:
                if _table(candidate, _read(candidate)) is not None:
                    return candidate
            except ConfigError:
                # A broken pyproject.toml may not be ours to judge; an explicit one is.
                continue
    return None


def load_config(path: Path) -> ProjectConfig:
    path = path.resolve()
    table = _table(path, _read(path))
    where = f"[tool.{TOOL_TABLE}]" if path.name == "pyproject.toml" else "the file"
    if table is None:
        raise ConfigError(f"{path}: has no [tool.{TOOL_TABLE}] table")
    for key in table:
        if key not in KEYS:
            raise ConfigError(
                f"{path}: {key!r} in {where} is not a setting; allowed keys: {', '.join(KEYS)}")
    sample_scope = table.get("sample-scope")
    if sample_scope is not None and not (isinstance(sample_scope, str) and sample_scope):
        raise ConfigError(f"{path}: 'sample-scope' must be a file path (a string, relative to "
                          f"{path.parent}), got {sample_scope!r}")
    return ProjectConfig(
        root=path.parent,
        path=path,
        exclude=_globs(path, table, "exclude", DEFAULT_EXCLUDE),
        extend_exclude=_globs(path, table, "extend-exclude", ()),
        rules=_rules(path, table.get("rules")),
        sample_scope=path.parent / sample_scope if sample_scope else None,
    )


def _globs(path: Path, table: dict[str, Any], key: str,
           default: tuple[str, ...]) -> tuple[str, ...]:
    value = table.get(key)
    if value is None:
        return default
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{path}: {key!r} must be a list of glob strings (gitignore-style, "
                          f"relative to {path.parent}), got {value!r}")
    invalid = next(invalid_patterns(value), None)
    if invalid is not None:
        pattern, reason = invalid
        raise ConfigError(f"{path}: {key!r} holds an invalid glob {pattern!r} ({reason}); "
                          "fix or remove it (gitignore syntax, docs/configuration.md)")
    return tuple(value)


def _rules(path: Path, value: Any) -> dict[str, Severity | None]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: 'rules' must be a table of rule id = level "
                          f"(one of {ALLOWED_LEVELS}), got {value!r}")
    rules: dict[str, Severity | None] = {}
    for rule, level in value.items():
        if rule not in RULES:
            raise ConfigError(f"{path}: rules.{rule} is not a rule id; rule ids are listed in "
                              "docs/rules.md (`relavium-lsp check` prints them with each finding)")
        if level == RULE_OFF:
            rules[rule] = None
        elif isinstance(level, str) and level in SEVERITY_NAMES:
            rules[rule] = SEVERITY_NAMES[level]
        else:
            raise ConfigError(f"{path}: rules.{rule} must be one of {ALLOWED_LEVELS}, "
                              f"got {level!r}")
    return rules


def with_rule_levels(
    diagnostics: list[Diagnostic], rules: dict[str, Severity | None]
) -> list[Diagnostic]:
    """The diagnostics at the levels `rules` sets; a rule set to off drops its findings."""
    leveled = []
    for diagnostic in diagnostics:
        level = rules.get(diagnostic.rule, diagnostic.severity)
        if level is not None:
            leveled.append(dataclasses.replace(diagnostic, severity=level))
    return leveled


def configured_sample_scope(workflow: Path) -> str | None:
    """The `sample-scope` of the configuration governing `workflow`, if it sets one."""
    found = find_config(workflow)
    scope = load_config(found).sample_scope if found else None
    return str(scope) if scope else None
