"""Code-point ↔ client-unit conversion and didChange application, including clamping."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from analysis.diagnostics import Position
from server.documents import apply_change
from server.positions import LineIndex

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


def test_incremental_change_uses_client_units() -> None:
    text = "x: 😀é\ny: 1\n"
    new, clamped = apply_change(text, partial((0, 5), (0, 6), "e"), UTF16)
    assert (new, clamped) == ("x: 😀e\ny: 1\n", False)


def test_out_of_range_change_is_clamped_not_lost() -> None:
    new, clamped = apply_change("a\nb", partial((1, 5), (9, 0), "!"), UTF16)
    assert (new, clamped) == ("a\nb!", True)
    new, clamped = apply_change("abc", partial((0, 2), (0, 1), ""), UTF16)
    assert (new, clamped) == ("ac", True)


def splice_reference(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


@given(
    st.text(alphabet=st.sampled_from("ab\né😀\r")),
    st.tuples(st.integers(0, 6), st.integers(0, 12)),
    st.tuples(st.integers(0, 6), st.integers(0, 12)),
    st.text(alphabet=st.sampled_from("x\n😀")),
)
def test_any_edit_applies_like_a_splice_of_the_clamped_range(
    text: str, start: tuple[int, int], end: tuple[int, int], new: str
) -> None:
    index = LineIndex(text, UTF16)
    result, _ = apply_change(text, partial(start, end, new), UTF16)
    offsets = sorted(
        index.client_offset(types.Position(line=line, character=column))
        for line, column in (start, end)
    )
    assert result == splice_reference(text, offsets[0], offsets[1], new)
