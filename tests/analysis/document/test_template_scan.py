"""The template scan (`{{ … }}` closing, top-level splits) agrees with a character-by-character
reading of the same rules on any text: quotes with backslash escapes, brackets, `}}`, `|`, `,`."""

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.document.templates import _closing, _split_top_level, find_references

_PIECES = ["{{", "}}", "}", "{", "|", ",", "'", '"', "\\", "[", "]", "(", ")", " ", "a", "é",
           "inputs.x", 'run.outputs["n"]', "json", "default('d')", "\n", "𝑥"]
template_like = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=2)),
                         max_size=30).map("".join)


def _reference_marks(text: str, start: int) -> list[tuple[int, int]]:
    """(index, bracket depth) of each character outside strings, read one by one."""
    found: list[tuple[int, int]] = []
    depth, quote, skip_next = 0, None, False
    for index in range(start, len(text)):
        ch = text[index]
        if skip_next:  # escaped by a backslash inside a string
            skip_next = False
            continue
        if quote is not None:
            skip_next = ch == "\\"
            quote = None if ch == quote else quote
            continue
        if ch in "\"'":
            quote = ch
            continue
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(ch, 0)
        depth = max(depth, 0)
        if ch not in "[]()":
            found.append((index, depth))
    return found


def _reference_closing(text: str, start: int) -> int:
    return next((index for index, depth in _reference_marks(text, start)
                 if depth == 0 and text.startswith("}}", index)), -1)


def _reference_split(text: str, delimiter: str) -> list[tuple[int, int]]:
    pieces, start = [], 0
    for index, depth in _reference_marks(text, 0):
        if depth == 0 and text[index] == delimiter:
            pieces.append((start, index))
            start = index + 1
    return [*pieces, (start, len(text))]


@settings(max_examples=500, deadline=None)
@given(template_like, st.integers(0, 5))
def test_closing_and_splits_match_a_character_by_character_reading(text: str, start: int) -> None:
    start = min(start, len(text))
    assert _closing(text, start) == _reference_closing(text, start)
    assert _split_top_level(text, "|") == _reference_split(text, "|")
    assert _split_top_level(text, ",") == _reference_split(text, ",")


def test_escaped_quotes_and_brackets_do_not_close_or_split() -> None:
    text = """{{ inputs.x | default("a}}\\"|[") | json }} and {{ ctx.k | default('(') }}"""
    refs = find_references(text)
    assert [ref.body for ref in refs] == [
        ' inputs.x | default("a}}\\"|[") | json ', " ctx.k | default('(') "]
    assert [[f.name for f in ref.filters] for ref in refs] == [["default", "json"], ["default"]]
    assert _split_top_level('a, "b,\\",c", [d, e], f', ",") == [(0, 1), (2, 11), (12, 19),
                                                                  (20, 22)]
