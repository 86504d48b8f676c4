"""The `relavium` settings section and the document selector."""

from __future__ import annotations

import pytest

from analysis.diagnostics import Severity
from server.lsp.boot.wire_json import TOO_DEEP
from server.lsp.document_uris import is_relavium_uri
from server.lsp.language_server import create_server
from server.lsp.session import Session
from server.lsp.settings import (
    DEFAULT_DEBOUNCE_MS,
    MAX_PROBLEMS,
    Settings,
    parse_settings,
    section_of,
)


def test_valid_settings_parse() -> None:
    settings, problems = parse_settings(
        {"debounceMs": 50, "rules": {"cycle": "warning", "unreachable-node": "off"},
         "sampleScope": "samples/scope.json"}
    )
    assert problems == []
    assert settings == Settings(
        debounce_ms=50,
        rules={"cycle": Severity.WARNING, "unreachable-node": None},
        sample_scope="samples/scope.json",
    )
    assert settings.severity_for("cycle", Severity.ERROR) == Severity.WARNING
    assert settings.severity_for("unreachable-node", Severity.WARNING) is None
    assert settings.severity_for("js-syntax", Severity.ERROR) == Severity.ERROR


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"debounceMs": "fast"}, "relavium.debounceMs"),
        ({"debounceMs": -1}, "relavium.debounceMs"),
        ({"debounceMs": True}, "relavium.debounceMs"),
        ({"rules": ["cycle"]}, "relavium.rules"),
        ({"rules": {"cycle": "loud"}}, "relavium.rules.cycle"),
        ({"sampleScope": 3}, "relavium.sampleScope"),
        ({"rules": {"cylce": "off"}}, "relavium.rules.cylce is not a rule id"),
        ({"debounce": 3}, "relavium.debounce"),
        ("everything", "relavium settings"),
    ],
)
def test_invalid_settings_fall_back_with_a_message_naming_the_field(
    raw: object, field: str
) -> None:
    settings, problems = parse_settings(raw)
    assert len(problems) == 1 and problems[0].startswith(field), problems
    assert settings.debounce_ms is None  # the default
    assert settings.rules == {} and settings.sample_scope is None


@pytest.mark.parametrize(
    ("configured", "last_analysis_ms", "gap_ms", "waited"),
    [
        # an edit after a pause is analysed at once
        (None, None, None, 0),  # the first edit since the document was opened
        (None, 95.0, 400.0, 0),
        (None, 95.0, None, 0),
        # ... unless an analysis takes longer than the longest default wait
        (None, 1800.0, 250.0, DEFAULT_DEBOUNCE_MS),
        (None, 1800.0, None, DEFAULT_DEBOUNCE_MS),
        # in a burst: twice the gap to the edit before, no longer than an analysis takes
        (None, 95.0, 20.0, 40),
        (None, 95.0, 60.0, 95),
        (None, 3.2, 2.0, 4),  # a small document is re-checked as soon as it would be checked
        (None, 1800.0, 150.0, DEFAULT_DEBOUNCE_MS),
        (None, None, 150.0, DEFAULT_DEBOUNCE_MS),  # only a cold analysis so far: no estimate
        # a number is waited exactly, whatever an analysis costs and however edits come
        (0, 95.0, 20.0, 0),
        (10_000, 95.0, 400.0, 10_000),
        (50, None, None, 50),
    ],
)
def test_an_edit_waits_only_in_a_burst_and_no_longer_than_an_analysis_unless_debounce_is_set(
    configured: int | None, last_analysis_ms: float | None, gap_ms: float | None, waited: int
) -> None:
    ls = create_server()
    ls.settings = Settings(debounce_ms=configured)
    now = 1000.0
    edited_at = None if gap_ms is None else now - gap_ms / 1000
    session = Session(ls, "file:///w/a.relavium.yaml", 1, "")
    session.last_analysis_ms, session.edited_at = last_analysis_ms, edited_at
    assert session.debounce_ms(now) == waited


def test_initialization_options_may_wrap_the_section() -> None:
    assert section_of({"relavium": {"debounceMs": 1}}) == {"debounceMs": 1}
    assert section_of({"debounceMs": 1}) == {"debounceMs": 1}
    assert section_of({"relavium": []}) == []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [([], Settings()), ({"rules": []}, Settings()),
     ({"rules": [], "debounceMs": 5}, Settings(debounce_ms=5))],
    ids=["section", "rules", "rules-beside-a-value"],
)
def test_an_empty_array_is_an_empty_mapping_as_lua_encodes_an_empty_table(
    raw: object, expected: Settings
) -> None:
    # Neovim's `settings = { relavium = { rules = {} } }` arrives as `{"rules": []}`
    assert parse_settings(raw) == (expected, [])


@pytest.mark.parametrize(
    ("raw", "field"),
    [([{"rules": {}}], "relavium settings must be an object"),
     ({"rules": ["x"]}, "relavium.rules")],
)
def test_a_non_empty_array_where_a_mapping_goes_stays_an_error(raw: object, field: str) -> None:
    settings, problems = parse_settings(raw)
    assert len(problems) == 1 and problems[0].startswith(field), problems
    assert settings == Settings()


@pytest.mark.parametrize(
    ("uri", "ours"),
    [
        ("file:///w/triage.relavium.yaml", True),
        ("file:///w/triage.relavium.yml", True),
        ("file:///w/TRIAGE.Relavium.YAML", True),
        ("file:///w/.relavium/flow.yaml", True),
        ("file:///w/.relavium/sub/flow.yml", True),
        ("untitled:/x/.relavium/new.yaml", True),
        ("file:///w/%2Erelavium/flow.yaml", True),
        ("file:///w/flow.yaml", False),
        ("file:///w/.relavium/flow.samples.yaml", False),
        ("file:///w/triage.samples.json", False),
        ("file:///w/.relavium/notes.md", False),
        ("file:///w/relavium/flow.yaml", False),
        ("file:///w/triage.relavium.json", False),
        ("file:///w/agents/summarizer.agent.yaml", True),
        ("file:///w/.relavium/agents/summarizer.yaml", True),
        ("file:///w/summarizer.agent.json", False),
    ],
)
def test_document_selector(uri: str, ours: bool) -> None:
    assert is_relavium_uri(uri) is ours

@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"debounceMs": "x" * 1_000_000}, "relavium.debounceMs"),
        ({"rules": [[[[[[["cycle"] * 1000]]]]]]}, "relavium.rules"),
        ({"rules": {"cycle": {"level": list(range(100_000))}}}, "relavium.rules.cycle"),
        ({"rules": {"c" * 1_000_000: "off"}}, "relavium.rules.ccc"),
        ({"x" * 1_000_000: 1}, "relavium.xxx"),
        ({"sampleScope": [TOO_DEEP]}, "relavium.sampleScope"),
    ],
)
def test_a_huge_or_deep_value_gives_a_short_message_naming_the_field(
    raw: object, field: str
) -> None:
    _, problems = parse_settings(raw)
    assert len(problems) == 1 and problems[0].startswith(field), problems
    assert len(problems[0]) < 300


def test_thousands_of_bad_keys_give_a_bounded_number_of_messages() -> None:
    _, problems = parse_settings({f"key{number}": 1 for number in range(5000)})
    assert len(problems) == MAX_PROBLEMS
    assert problems[-1] == f"and {5000 - MAX_PROBLEMS + 1} more invalid relavium settings; ignored"
    assert problems[0].startswith("relavium.key0 is not a setting")


@pytest.mark.parametrize(
    ("raw", "scope", "problem"),
    [
        ({}, "open", None),  # the default (docs/server.md: what linters in VS Code do)
        ({"diagnostics": {"scope": "workspace"}}, "workspace", None),
        ({"diagnostics": {"scope": "open"}}, "open", None),
        ({"diagnostics": {}}, "open", None),
        ({"diagnostics": []}, "open", None),  # Neovim's Lua sends an empty table as []
        ({"diagnostics": {"scope": "everything"}}, "open", "relavium.diagnostics.scope must be"),
        ({"diagnostics": "workspace"}, "open", "relavium.diagnostics must be an object"),
    ],
)
def test_the_diagnostics_scope(raw: dict[str, object], scope: str, problem: str | None) -> None:
    settings, problems = parse_settings(raw)
    assert settings.diagnostics_scope == scope
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].startswith(problem), problems
