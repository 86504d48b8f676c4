"""Exact positions inside each of the five scalar styles, with non-ASCII text before them."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.checks.analyze import analyze
from analysis.diagnostics import Diagnostic, Position, Severity
from analysis.document.source import SourceText, line_starts
from server.cli.formats import FileReport, to_json, to_sarif
from tests.conftest import FIXTURES
from tests.operations import lines_executed

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


@given(st.text(alphabet=st.sampled_from("ab\né😀\r€")), st.data())
def test_utf16_columns_count_every_character_on_the_line(text: str, data: st.DataObject) -> None:
    source = SourceText(text)
    line = data.draw(st.integers(0, source.line_count - 1))
    column = data.draw(st.integers(0, len(source.line_text(line))))
    shown = source.line_text(line)[:column]
    assert source.utf16_character(Position(line, column)) == len(shown.encode("utf-16-le")) // 2


def test_reports_of_many_findings_on_one_long_line_grow_linearly() -> None:
    """A finding's UTF-16 columns cost O(log n), not the length of its line: `check --format
    json/sarif` of a one-line (flow style or minified) workflow with a finding per node was
    quadratic. 10x the line and 10x the findings: about 10x the work."""

    def cost(size: int) -> int:
        source = SourceText("x: [" + "'é😀', " * size + "]")
        findings = [
            Diagnostic(source.range(offset, offset + 3), Severity.WARNING, "r", "m")
            for offset in range(0, len(source.text), 7)
        ]
        reports = [FileReport("w.relavium.yaml", source, findings)]
        return lines_executed(lambda: (to_json(reports), to_sarif(reports)), "analysis")

    small, large = cost(300), cost(3_000)
    assert large <= small * 12, (small, large)
