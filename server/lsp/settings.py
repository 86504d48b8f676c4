"""The `relavium` settings section: parsed leniently, every invalid field named and defaulted.

Sources, later overriding earlier: defaults, `initializationOptions` (either the section itself
or `{"relavium": {...}}`), then `workspace/configuration` for section `relavium`.

A workspace's `.vscode/settings.json` chooses these values, so a message quotes a value clipped
(`shown_value`: 3 levels, 5 items, 60 characters) and names at most `MAX_PROBLEMS` fields; a
value nested past the wire's depth limit arrives as `server.lsp.boot.wire_json.TOO_DEEP` and is
reported as a value of the wrong type.

Every setting that takes a mapping (the section itself, `rules`) reads it through `mapping`: an
empty JSON array is an empty mapping there, because that is how Lua encodes `{}` and Neovim's
`settings = { relavium = { rules = {} } }` arrives as `"rules": []`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from analysis.checks.registry import RULES
from analysis.diagnostics import Severity
from analysis.project.config import shown_key, shown_value

SECTION = "relavium"
# Without `debounceMs`, an edit in a burst waits no longer than the document's last analysis took
# and at most this; one after a pause waits nothing, or this when an analysis takes longer
# (`RelaviumLanguageServer.debounce_ms`).
DEFAULT_DEBOUNCE_MS = 200
DEFAULT_DEBOUNCE = (
    f"the default (none after a pause; in a burst at most {DEFAULT_DEBOUNCE_MS} ms)"
)
MAX_DEBOUNCE_MS = 10_000
SEVERITY_NAMES = {severity.label: severity for severity in Severity}
RULE_OFF = "off"
# `relavium.diagnostics.scope`: the open documents only (the default: docs/server.md says why),
# or every workflow and agent file of the workspace
SCOPE_OPEN = "open"
SCOPE_WORKSPACE = "workspace"
# Each problem is a message the editor shows: a settings file with thousands of bad keys gets
# this many and one line counting the rest.
MAX_PROBLEMS = 10


@dataclass(frozen=True)
class Settings:
    # None: the default, adaptive (see DEFAULT_DEBOUNCE_MS); a number is waited exactly
    debounce_ms: int | None = None
    # rule id → severity override, or None when the rule is switched off
    rules: dict[str, Severity | None] = field(default_factory=dict)
    # an explicit sample-scope file for "run with sample scope"; relative to the workspace root
    sample_scope: str | None = None
    # which files get diagnostics: SCOPE_OPEN or SCOPE_WORKSPACE
    diagnostics_scope: str = SCOPE_OPEN

    def severity_for(self, rule: str, default: Severity) -> Severity | None:
        """The severity to publish a rule's diagnostic with, or None when the rule is off."""
        return self.rules.get(rule, default)


def mapping(value: Any) -> dict[Any, Any] | None:
    """`value` as a settings mapping: itself when it is one, `{}` for an empty array (Lua's `{}`),
    None for anything else (the caller names the setting in its message)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, list) and not value:
        return {}
    return None


def section_of(raw: Any) -> Any:
    """`initializationOptions` may hold the section itself or wrap it under `relavium`."""
    wrapped = mapping(raw)
    if wrapped is not None and mapping(wrapped.get(SECTION)) is not None:
        return wrapped[SECTION]
    return raw


def parse_settings(raw: Any) -> tuple[Settings, list[str]]:
    """Settings from a client's `relavium` section, plus one message per invalid field."""
    if raw is None:
        return Settings(), []
    section = mapping(raw)
    if section is None:
        return Settings(), [
            f"relavium settings must be an object, got {type(raw).__name__}; using defaults"
        ]
    problems: list[str] = []
    known = {"debounceMs", "rules", "sampleScope", "diagnostics"}
    problems.extend(
        f"relavium.{shown_key(key)} is not a setting (known: {', '.join(sorted(known))}); ignored"
        for key in section
        if key not in known
    )
    settings = Settings(
        debounce_ms=_debounce(section.get("debounceMs"), problems),
        rules=_rules(section.get("rules"), problems),
        sample_scope=_sample_scope(section.get("sampleScope"), problems),
        diagnostics_scope=_diagnostics_scope(section.get("diagnostics"), problems),
    )
    if len(problems) > MAX_PROBLEMS:
        left = len(problems) - MAX_PROBLEMS + 1
        problems[MAX_PROBLEMS - 1:] = [f"and {left} more invalid relavium settings; ignored"]
    return settings, problems


def _debounce(value: Any, problems: list[str]) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        problems.append(
            f"relavium.debounceMs must be a number of milliseconds, got {shown_value(value)}; "
            f"using {DEFAULT_DEBOUNCE}"
        )
        return None
    if not 0 <= value <= MAX_DEBOUNCE_MS:
        problems.append(
            f"relavium.debounceMs must be between 0 and {MAX_DEBOUNCE_MS}, "
            f"got {shown_value(value)}; "
            f"using {DEFAULT_DEBOUNCE}"
        )
        return None
    return int(value)


def _rules(value: Any, problems: list[str]) -> dict[str, Severity | None]:
    if value is None:
        return {}
    levels = mapping(value)
    if levels is None:
        problems.append(
            'relavium.rules must map rule ids to "error", "warning", "information", "hint" or '
            f'"off", got {shown_value(value)}; ignored'
        )
        return {}
    rules: dict[str, Severity | None] = {}
    for rule, level in levels.items():
        if rule not in RULES:
            problems.append(
                f"relavium.rules.{shown_key(rule)} is not a rule id (see docs/rules.md for the "
                "list); ignored"
            )
        elif level == RULE_OFF:
            rules[rule] = None
        elif isinstance(level, str) and level in SEVERITY_NAMES:
            rules[rule] = SEVERITY_NAMES[level]
        else:
            problems.append(
                f"relavium.rules.{rule} must be one of error, warning, information, hint, off; "
                f"got {shown_value(level)}; using the rule's default"
            )
    return rules


def _sample_scope(value: Any, problems: list[str]) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        problems.append(
            f"relavium.sampleScope must be a file path, got {shown_value(value)}; ignored"
        )
        return None
    return value


def _diagnostics_scope(value: Any, problems: list[str]) -> str:
    """`diagnostics: {scope: "open" | "workspace"}` (VS Code sends `relavium.diagnostics.scope`
    nested so)."""
    if value is None:
        return SCOPE_OPEN
    given = mapping(value)
    if given is None:
        problems.append(f"relavium.diagnostics must be an object such as "
                        f'{{"scope": "{SCOPE_WORKSPACE}"}}, got {shown_value(value)}; ignored')
        return SCOPE_OPEN
    scope = given.get("scope")
    if scope is None:
        return SCOPE_OPEN
    if scope not in (SCOPE_OPEN, SCOPE_WORKSPACE):
        problems.append(
            f'relavium.diagnostics.scope must be "{SCOPE_OPEN}" or "{SCOPE_WORKSPACE}", got '
            f"{shown_value(scope)}; using {SCOPE_OPEN}"
        )
        return SCOPE_OPEN
    return str(scope)
