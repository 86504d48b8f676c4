"""Project configuration: `[tool.relavium-lsp]` in `pyproject.toml`, or the same keys at the top
of `relavium-lsp.toml` / `.relavium-lsp.toml` (docs/configuration.md).

Contract: `find_config(start)` is the first such file walking up from `start` (in one folder,
`.relavium-lsp.toml`, then `relavium-lsp.toml`, then a `pyproject.toml` that has the table, or
that does not parse and names it on a line: `_names_our_table`);
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
import re
import reprlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

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


# How much of a configured value a message quotes: settings come from files a repository holds,
# and a value of any size or depth must give a message of a few lines (reprlib stops at these).
_SHOWN = reprlib.Repr()
_SHOWN.maxlevel = 3
_SHOWN.maxstring = _SHOWN.maxother = 60
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = _SHOWN.maxset = 5


def shown_value(value: Any) -> str:
    """`repr(value)` for a message: at most 3 levels, 5 items per level, 60 characters a string."""
    return _SHOWN.repr(value)


def shown_key(key: str) -> str:
    """A key from a configuration, as a message names it: its first 60 characters."""
    return key if len(key) <= _SHOWN.maxstring else key[: _SHOWN.maxstring - 1] + "…"


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
            text = handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except RecursionError:
        # tomllib recurses once per nested array or inline table (a few hundred levels deep)
        raise ConfigError(f"{path}: arrays or inline tables are nested too deeply for the TOML "
                          "reader; flatten them") from None
    except ValueError as error:  # TOMLDecodeError, and an integer past Python's digit limit
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    return data


# How a `pyproject.toml` names our table: a `[tool.relavium-lsp…]` header, a
# `tool.relavium-lsp…` dotted key, or a `relavium-lsp` key under a `[tool]` header; bare or
# quoted. What a file that does not parse holds is only known from this.
_OUR_TABLE = r"""(?:relavium-lsp|"relavium-lsp"|'relavium-lsp')[ \t]*[.\]=]"""
_NAMES_OUR_TABLE = re.compile(
    r"^[ \t]*(?:\[[ \t]*){0,2}tool[ \t]*\.[ \t]*" + _OUR_TABLE, re.MULTILINE
)
_TOOL_SECTION = re.compile(
    r"^[ \t]*\[[ \t]*tool[ \t]*\][^\n]*\n(?:(?![ \t]*\[)[^\n]*\n)*?[ \t]*" + _OUR_TABLE,
    re.MULTILINE,
)


def _names_our_table(path: Path) -> bool:
    """Whether the text of a `pyproject.toml` that does not parse names our table (see
    `_OUR_TABLE`); unreadable text names nothing."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return False
    return bool(_NAMES_OUR_TABLE.search(text) or _TOOL_SECTION.search(text))


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
                # A broken pyproject.toml is ours to judge only if it names our table; then
                # `load_config` reports it (the CLI exits 2, the server shows it on the file).
                if _names_our_table(candidate):
                    return candidate
    return None


def load_config(path: Path) -> ProjectConfig:
    path = path.resolve()
    table = _table(path, _read(path))
    where = f"[tool.{TOOL_TABLE}]" if path.name == "pyproject.toml" else "the file"
    if table is None:
        raise ConfigError(f"{path}: has no [tool.{TOOL_TABLE}] table")
    for key in table:
        if key not in KEYS:
            raise ConfigError(f"{path}: {shown_value(key)} in {where} is not a setting; "
                              f"allowed keys: {', '.join(KEYS)}")
    sample_scope = table.get("sample-scope")
    if sample_scope is not None and not (isinstance(sample_scope, str) and sample_scope):
        raise ConfigError(f"{path}: 'sample-scope' must be a file path (a string, relative to "
                          f"{path.parent}), got {shown_value(sample_scope)}")
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
                          f"relative to {path.parent}), got {shown_value(value)}")
    invalid = next(invalid_patterns(value), None)
    if invalid is not None:
        pattern, reason = invalid
        raise ConfigError(f"{path}: {key!r} holds an invalid glob {shown_value(pattern)} "
                          f"({reason}); fix or remove it (gitignore syntax, docs/configuration.md)")
    return tuple(value)


def _rules(path: Path, value: Any) -> dict[str, Severity | None]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: 'rules' must be a table of rule id = level "
                          f"(one of {ALLOWED_LEVELS}), got {shown_value(value)}")
    # the registry loads every rule: a configuration that names none (and `run`) need not
    from analysis.checks.registry import RULES

    rules: dict[str, Severity | None] = {}
    for rule, level in value.items():
        if rule not in RULES:
            raise ConfigError(f"{path}: rules.{shown_key(rule)} is not a rule id; rule ids are "
                              "listed in docs/rules.md (`relavium-lsp check` prints them with "
                              "each finding)")
        if level == RULE_OFF:
            rules[rule] = None
        elif isinstance(level, str) and level in SEVERITY_NAMES:
            rules[rule] = SEVERITY_NAMES[level]
        else:
            raise ConfigError(f"{path}: rules.{rule} must be one of {ALLOWED_LEVELS}, "
                              f"got {shown_value(level)}")
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
