"""Code-point ↔ client-unit conversion and didChange application, including clamping."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from analysis.checks.analyze import analyze
from analysis.diagnostics import Position
from server.lsp import positions, text_sync
from server.lsp.documents import Snapshot
from server.lsp.positions import LineIndex
from server.lsp.text_sync import SyncedText
from tests.operations import lines_executed

UTF8, UTF16, UTF32 = (
    types.PositionEncodingKind.Utf8,
    types.PositionEncodingKind.Utf16,
    types.PositionEncodingKind.Utf32,
)
TEXT = "a: 'é😀x'\r\nb: |\n  ünï\rc"


def test_columns_follow_the_negotiated_encoding() -> None:
    after_emoji = Position(0, 6)  # "a: 'é😀" is six code points
    assert LineIndex(TEXT, UTF32).to_client_position(after_emoji).character == 6
    assert LineIndex(TEXT, UTF16).to_client_position(after_emoji).character == 7
    assert LineIndex(TEXT, UTF8).to_client_position(after_emoji).character == 10


def test_lines_break_at_crlf_cr_and_lf_only() -> None:
    index = LineIndex("a\u2028b\x0cc\r\nd\re\nf", UTF16)
    assert [index.line_text(n) for n in range(index.line_count)] == ["a\u2028b\x0cc", "d", "e", "f"]


def test_a_column_inside_a_surrogate_pair_snaps_to_the_character() -> None:
    index = LineIndex(TEXT, UTF16)
    assert index.from_client_position(types.Position(line=0, character=6)) == Position(0, 5)
    assert index.from_client_position(types.Position(line=0, character=7)) == Position(0, 6)


def test_out_of_range_positions_clamp() -> None:
    index = LineIndex(TEXT, UTF16)
    assert index.from_client_position(types.Position(line=0, character=999)) == Position(0, 8)
    assert index.from_client_position(types.Position(line=99, character=0)) == Position(3, 1)
    assert index.to_client_position(Position(99, 99)) == types.Position(line=3, character=1)


@given(st.text(alphabet=st.sampled_from("ab\né😀\r\u2028")), st.data())
def test_round_trip_through_every_encoding(text: str, data: st.DataObject) -> None:
    for encoding in (UTF8, UTF16, UTF32):
        index = LineIndex(text, encoding)
        offset = data.draw(st.integers(0, len(text)))
        position = index.position_at(offset)
        if text[max(offset - 1, 0) : offset + 1] == "\r\n":
            continue  # between CR and LF is not a position
        assert index.from_client_position(index.to_client_position(position)) == position
        assert index.offset(position) == offset


def partial(
    start: tuple[int, int], end: tuple[int, int], text: str
) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(
        range=types.Range(
            start=types.Position(line=start[0], character=start[1]),
            end=types.Position(line=end[0], character=end[1]),
        ),
        text=text,
    )


def apply_changes(
    text: str, changes: list[types.TextDocumentContentChangeEvent], encoding: str
) -> tuple[str, int]:
    state = SyncedText(text)
    clamped = state.apply(changes, encoding)
    return state.text, clamped


def test_incremental_change_uses_client_units() -> None:
    text = "x: 😀é\ny: 1\n"
    new, clamped = apply_changes(text, [partial((0, 5), (0, 6), "e")], UTF16)
    assert (new, clamped) == ("x: 😀e\ny: 1\n", 0)


def test_out_of_range_change_is_clamped_not_lost() -> None:
    new, clamped = apply_changes("a\nb", [partial((1, 5), (9, 0), "!")], UTF16)
    assert (new, clamped) == ("a\nb!", 1)
    new, clamped = apply_changes("abc", [partial((0, 2), (0, 1), "")], UTF16)
    assert (new, clamped) == ("ac", 1)
    new, clamped = apply_changes("é\n", [partial((0, 1), (0, 2), "x")], UTF16)
    assert (new, clamped) == ("éx\n", 1)


def splice_reference(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


@given(
    st.text(alphabet=st.sampled_from("ab\né😀\r\u2028\f")),
    st.tuples(st.integers(0, 6), st.integers(0, 12)),
    st.tuples(st.integers(0, 6), st.integers(0, 12)),
    st.text(alphabet=st.sampled_from("x\n😀")),
)
def test_any_edit_applies_like_a_splice_of_the_clamped_range(
    text: str, start: tuple[int, int], end: tuple[int, int], new: str
) -> None:
    index = LineIndex(text, UTF16)
    result, _ = apply_changes(text, [partial(start, end, new)], UTF16)
    offsets = sorted(
        index.client_offset(types.Position(line=line, character=column))
        for line, column in (start, end)
    )
    assert result == splice_reference(text, offsets[0], offsets[1], new)


EDITS = st.lists(
    st.tuples(
        st.tuples(st.integers(0, 6), st.integers(0, 8)),
        st.tuples(st.integers(0, 6), st.integers(0, 8)),
        st.text(alphabet=st.sampled_from("x\n\r😀é")),
    ),
    max_size=8,
)


@given(st.text(alphabet=st.sampled_from("ab\né😀\r\u2028\f")), EDITS)
def test_many_edits_in_one_change_apply_one_after_another(
    text: str, edits: list[tuple[tuple[int, int], tuple[int, int], str]]
) -> None:
    """The line-list splice agrees with rebuilding the whole text after every edit, including a
    "\r" and an inserted "\n" joining into one line break."""
    expected = text
    for start, end, new in edits:
        index = LineIndex(expected, UTF16)
        offsets = sorted(
            index.client_offset(types.Position(line=line, character=column))
            for line, column in (start, end)
        )
        expected = splice_reference(expected, offsets[0], offsets[1], new)
    changes: list[types.TextDocumentContentChangeEvent] = [
        partial(start, end, new) for start, end, new in edits
    ]
    assert apply_changes(text, changes, UTF16)[0] == expected
    # the same edits as one didChange each, on one document that keeps its lines between them
    state = SyncedText(text)
    for change in changes:
        state.apply([change], UTF16)
    assert state.text == expected


def test_a_whole_document_event_among_edits_replaces_the_text() -> None:
    whole = types.TextDocumentContentChangeWholeDocument(text="new\ntext")
    changes = [partial((0, 0), (0, 0), "old "), whole, partial((1, 0), (1, 4), "body")]
    assert apply_changes("x", changes, UTF16) == ("new\nbody", 0)


def test_many_edits_cost_the_same_in_a_ten_times_larger_document() -> None:
    """A replace-all (one didChange, a thousand edits) costs in proportion to the edits, not to
    edits times the document: the count of Python lines run is the same for 10x the text."""
    edits = [partial((line * 3, 0), (line * 3, 1), "y") for line in range(1000)]

    def cost(lines: int) -> int:
        text = "x: 1\n" * lines
        return lines_executed(lambda: apply_changes(text, edits, UTF16), "server")

    small, large = cost(3_000), cost(30_000)
    assert large <= small * 1.2, (small, large)


def test_a_keystroke_does_not_split_the_document_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lines are split once and kept: splitting a 1 MB document on every keystroke held the
    event loop 40-90 ms each time. A whole-document event is never split."""
    splits: list[int] = []
    real_split = text_sync._split_lines
    monkeypatch.setattr(
        text_sync, "_split_lines", lambda text: splits.append(len(text)) or real_split(text)
    )
    state = SyncedText("a: 1\n" * 1000)
    state.apply([types.TextDocumentContentChangeWholeDocument(text="b: 2\n" * 1000)], UTF16)
    assert splits == []
    for column in range(5):
        state.apply([partial((500, column), (500, column), "x")], UTF16)
    # (each edit also splits its own few lines)
    assert [length for length in splits if length > 100] == [5000]
    assert state.text.splitlines()[500] == "xxxxxb: 2"


def test_a_snapshots_line_index_takes_the_analysis_line_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The analysis already found the text's line starts; converting its diagnostics must not
    find them again (33 ms for a 1 MB document, on the event loop)."""
    text = "a: 'é😀x'\r\nb: 1\n" * 50
    result = analyze(text)
    searched: list[str] = []
    monkeypatch.setattr(positions, "line_starts", lambda text: searched.append(text) or [])
    lines = Snapshot("file:///t.relavium.yaml", 1, text, result, UTF16).lines
    assert lines.to_client_position(Position(98, 6)) == types.Position(line=98, character=7)
    assert lines.line_count == 101 and searched == []


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_client_point_and_line_at_agree_with_the_codec_at_every_offset(encoding: str) -> None:
    # the ASCII shortcut must not count a "\r" of "\r\n" nor skip the codec after non-ASCII
    text = "a: 😀é x\r\nb: 1\rc\n\u2028x: 𝒳 y\r\n\r\nlast"
    lines = LineIndex(text, encoding)
    for offset in range(-2, len(text) + 3):
        client = lines.to_client_position(lines.position_at(offset))
        assert lines.client_point(offset) == (client.line, client.character), offset
        assert lines.line_at(offset) == client.line, offset


def reference_client_position(text: str, encoding: str, position: Position) -> types.Position:
    """Character by character, with pygls' own unit counts (what LineIndex did before)."""
    codec = PositionCodec(encoding)
    lines = LineIndex(text, encoding)
    clamped = lines.position_at(lines.offset(position))
    prefix = lines.line_text(clamped.line)[: clamped.character]
    return types.Position(line=clamped.line, character=codec.client_num_units(prefix))


def reference_position(text: str, encoding: str, position: types.Position) -> Position:
    codec = PositionCodec(encoding)
    lines = LineIndex(text, encoding)
    if position.line >= lines.line_count:
        last = lines.line_count - 1
        return Position(last, len(lines.line_text(last)))
    units = 0
    for column, char in enumerate(lines.line_text(position.line)):
        units += codec.impl.code_units_for_char(char)
        if units > position.character:
            return Position(position.line, column)
    return Position(position.line, len(lines.line_text(position.line)))


@given(st.text(alphabet=st.sampled_from("ab\né😀\r\u2028ß€")), st.data())
def test_conversions_count_units_as_pygls_does(text: str, data: st.DataObject) -> None:
    for encoding in (UTF8, UTF16, UTF32):
        index = LineIndex(text, encoding)
        line = data.draw(st.integers(0, index.line_count))
        ours = Position(line, data.draw(st.integers(0, 12)))
        assert index.to_client_position(ours) == reference_client_position(text, encoding, ours)
        theirs = types.Position(line=line, character=data.draw(st.integers(0, 24)))
        assert index.from_client_position(theirs) == reference_position(text, encoding, theirs)
        if line < index.line_count:
            assert index.client_line_length(line) == codec_units(encoding, index.line_text(line))


def codec_units(encoding: str, text: str) -> int:
    return int(PositionCodec(encoding).client_num_units(text))


def test_positions_on_one_long_line_cost_in_proportion_to_their_number() -> None:
    """Converting a position costs O(log n), not the length of its line: a diagnostic, token
    or hint per node of a workflow written on one line (flow style, or minified) made
    publishing them quadratic. 10x the line and 10x the positions: about 10x the work."""

    def cost(size: int) -> int:
        text = "x: [" + "'é😀', " * size + "]"
        offsets = range(0, len(text), 7)
        positions = [Position(0, offset) for offset in offsets]
        client = [types.Position(line=0, character=offset) for offset in offsets]

        def convert() -> None:
            for encoding in (UTF8, UTF16):
                index = LineIndex(text, encoding)
                for position in positions:
                    index.to_client_position(position)
                for unit in client:
                    index.from_client_position(unit)
                index.client_line_length(0)

        return lines_executed(convert, "server", "analysis")

    small, large = cost(300), cost(3_000)
    assert large <= small * 13, (small, large)


def reference_locate(
    line: str, character: int, encoding: str
) -> tuple[int, bool]:
    """Character by character with pygls' unit counts (what `_locate` did before)."""
    codec = PositionCodec(encoding)
    units = 0
    for column, char in enumerate(line):
        units += codec.impl.code_units_for_char(char)
        if units > character:
            return column, False
    return len(line), units < character


@given(st.text(alphabet=st.sampled_from("abé😀€")), st.integers(0, 20))
def test_a_change_is_located_and_clamped_as_pygls_counts_units(text: str, character: int) -> None:
    for encoding in (UTF8, UTF16, UTF32):
        (_, column), clamped = text_sync._locate(
            [text], types.Position(line=0, character=character), encoding
        )
        assert (column, clamped) == reference_locate(text, character, encoding)


def test_many_edits_on_one_long_line_cost_python_work_in_proportion() -> None:
    """Locating an edit on a non-ASCII line stepped through every character before it in
    Python: a replace-all on a one-line (flow-style, minified) workflow was quadratic. 10x the
    line and 10x the edits: about 10x the Python work (the splice itself copies the line)."""

    def cost(size: int) -> int:
        text = "x: [" + "'é😀', " * size + "]"
        edits = [partial((0, column), (0, column + 1), "y")
                 for column in range(len(text), 4, -len(text) // size * 5)]
        return lines_executed(lambda: apply_changes(text, edits, UTF16), "server", "analysis")

    small, large = cost(200), cost(2_000)
    assert large <= small * 12, (small, large)
