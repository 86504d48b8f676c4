"""Exact positions inside each of the five scalar styles, with non-ASCII text before them."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis import analyze
from analysis.report import FileReport, to_json
from analysis.source import line_starts
from tests.conftest import FIXTURES

POSITION_FIXTURES = sorted((FIXTURES / "positions").glob("*.relavium.yaml"))


def test_there_is_a_fixture_per_style_and_for_crlf() -> None:
    names = {path.name.removesuffix(".relavium.yaml") for path in POSITION_FIXTURES}
    assert names >= {"plain", "single-quoted", "double-quoted", "literal", "folded",
                     "literal-crlf"}


@pytest.mark.parametrize("path", POSITION_FIXTURES, ids=lambda p: p.name)
def test_reference_inside_scalar_is_located_exactly(path: Path) -> None:
    with path.open(encoding="utf-8", newline="") as handle:
        text = handle.read()
    result = analyze(text)
    [diagnostic] = result.diagnostics
    assert diagnostic.rule == "unknown-template-reference"
    start = result.source.offset(diagnostic.range.start)
    end = result.source.offset(diagnostic.range.end)
    assert text[start:end] == "topik"
    # One astral character (😀) precedes the name on its line: UTF-16 is one unit further.
    [record] = to_json([FileReport(str(path), result.source, result.diagnostics)])
    assert record["range"]["start"]["character"] == diagnostic.range.start.character + 1
    assert record["range"]["end"]["character"] == diagnostic.range.end.character + 1


@given(st.text(alphabet=st.sampled_from([*"ab é😀\t", "\n", "\r", "\u2028", "\x85"])))
def test_line_starts_follow_the_lsp_line_breaks(text: str) -> None:
    """With or without a "\\r" in the text (two ways of counting): a line starts at 0 and after
    every "\\n", and after every "\\r" that no "\\n" follows; U+2028 and NEL break no line."""
    expected = [0] + [
        index + 1 for index, char in enumerate(text)
        if char == "\n" or (char == "\r" and text[index + 1 : index + 2] != "\n")
    ]
    assert line_starts(text) == expected
