"""The one escaping of terminal and CI-log output (`escape_line`) and of JSON output
(`escape_json_text`), over any text: what a GitHub Actions runner would execute never survives
(actions/runner src/Runner.Worker/ActionCommand.cs: `::` at the trimmed start of a line,
`##[` anywhere), and JSON decodes to the same data."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from analysis.diagnostics import Position, Range
from analysis.document.display import escape_json_text, escape_line, excerpt
from analysis.document.source import SourceText

# Text a hostile name or value is made of: the command marks, blanks, controls, format
# characters and marks a culture-aware match looks through, and ordinary letters.
PIECES = st.sampled_from([":", "::", "#", "##", "[", "##[", " ", "\t", "\u3000", "\u00a0",
                          "\u200b", "\u00ad", "\u0301", "\u202e", "\x1b", "\x9b", "\x85",
                          "\u2028", "\ud800", "a", "é", "😀", "\\", "\\x23", "\""])
TEXT = st.lists(PIECES, max_size=12).map("".join)


def executed(line: str) -> bool:
    seen = "".join(ch for ch in line if unicodedata.category(ch) not in ("Cf", "Mn", "Me"))
    return seen.lstrip().startswith("::") or "##[" in seen


def raw_control(text: str) -> bool:
    return any((unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") and ch != "\t")
               or ch == "\u202e" for ch in text)


@given(TEXT)
def test_no_escaped_line_is_a_command_or_holds_a_control(text: str) -> None:
    line = escape_line(text)
    assert not executed(line) and not raw_control(line)
    assert escape_line(line) == line  # once is enough: nothing is escaped twice


@given(TEXT)
def test_an_excerpt_of_any_line_is_neither(text: str) -> None:
    source = SourceText(text + "\n")
    for column in range(len(text) + 1):
        shown, caret = excerpt(source, Range(Position(0, column), Position(0, len(text))))
        assert not executed(shown) and not raw_control(shown)
        assert caret.strip("^~ \t") == ""


def test_ordinary_text_is_unchanged() -> None:
    for line in ["w.relavium.yaml:1:2: error unknown-key a: b", "  - { id: a::b, when: '#1' }",
                 "note: `é` # [x]", "\tindented: 'ok'"]:
        assert escape_line(line) == line


def test_the_forms_and_their_escapes() -> None:
    assert escape_line("::warning::x") == "\\x3a:warning::x"
    assert escape_line(" \t\u3000::error::x") == " \t\u3000\\x3a:error::x"
    assert escape_line("\u200b:\u00ad:x") == "\u200b\\x3a\u00ad:x"
    assert escape_line("a ###[b ##[c") == "a ##\\x23[b #\\x23[c"
    assert escape_line("a #\u200b#[b") == "a #\u200b\\x23[b"
    assert escape_line("a: ::b") == "a: ::b"  # not at the start: not a command


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


@given(JSON, st.sampled_from([None, 2]), st.booleans())
def test_json_decodes_to_the_same_data(document: Any, indent: int | None, ascii_only: bool) -> None:
    dumped = escape_json_text(json.dumps(document, indent=indent, ensure_ascii=ascii_only))
    assert json.loads(dumped) == document
    assert "#" not in dumped and not raw_control(dumped.replace("\n", ""))
    assert not any(executed(line) for line in dumped.split("\n"))
