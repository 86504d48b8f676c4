"""Decoded-scalar → source offsets, for all five scalar styles (property-tested)."""

from typing import SupportsIndex

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.document.scalar_offsets import ScalarText, map_scalar
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YMapping, YScalar, YSequence
from analysis.document.yaml_read import read_yaml

STYLES = [None, "'", '"', "|", ">"]
# No NEL: PyYAML's emitter writes it as a YAML 1.1 line break, and the reader (like the engine)
# reads YAML 1.2, where it is an ordinary character (test_yaml_decode.py covers that).
TEXT = st.text(alphabet=st.sampled_from([*"ab  \t\n#:'\"\\-é中😀,|{}", "\r"]), max_size=40)


def emit(value: str, style: str | None, width: int, indent: int) -> str:
    implicit = (True, False) if style is None else (False, True)
    events = [
        yaml.StreamStartEvent(), yaml.DocumentStartEvent(),
        yaml.SequenceStartEvent(None, None, True, flow_style=False),
        yaml.MappingStartEvent(None, None, True, flow_style=False),
        yaml.ScalarEvent(None, None, (True, False), "k"),
        yaml.ScalarEvent(None, None, implicit, value, style=style),
        yaml.MappingEndEvent(), yaml.SequenceEndEvent(), yaml.DocumentEndEvent(),
        yaml.StreamEndEvent(),
    ]
    return yaml.emit(events, width=width, indent=indent, allow_unicode=True)


def the_scalar(text: str) -> YScalar:
    root = read_yaml(SourceText(text)).root
    assert isinstance(root, YSequence) and isinstance(root.items[0], YMapping)
    value = root.items[0].entries[0].value
    assert isinstance(value, YScalar)
    return value


def assert_maps_back(text: str, scalar: YScalar) -> None:
    mapped = map_scalar(text, scalar)
    assert mapped is not None, (scalar.style, text)
    starts, ends = mapped
    assert len(starts) == len(scalar.text) + 1
    assert starts == sorted(starts)
    for index, char in enumerate(scalar.text):
        source = text[starts[index]:ends[index]]
        if char in " \n" and source in ("\n", "\r\n", "\r"):
            continue  # a folded or kept line break
        if source.startswith("\\") or (char == "'" and source == "''"):
            continue  # an escape
        assert source == char, (index, char, source, text)


@settings(max_examples=400, deadline=None)
@given(TEXT, st.sampled_from(STYLES), st.sampled_from([10, 80]), st.sampled_from([2, 4]),
       st.booleans())
def test_every_emitted_scalar_maps_back_exactly(
    value: str, style: str | None, width: int, indent: int, crlf: bool
) -> None:
    try:
        text = emit(value, style, width, indent)
    except yaml.YAMLError:
        return  # not representable in that style
    if crlf:
        text = text.replace("\n", "\r\n")
    assert_maps_back(text, the_scalar(text))


def test_folded_scalar_with_more_indented_lines_and_keep_chomping() -> None:
    text = "- k: >+\n    é one\n    two\n\n      more\n    last 😀\n\n- x: 1\n"
    scalar = the_scalar(text)
    assert scalar.text == "é one two\n\n  more\nlast 😀\n\n"
    assert_maps_back(text, scalar)


def test_literal_with_indentation_indicator_and_comment_lines_as_text() -> None:
    text = "- k: |2-\n     # not a comment\n    ünïcode\n"
    scalar = the_scalar(text)
    assert scalar.text == " # not a comment\nünïcode"
    assert_maps_back(text, scalar)


def test_double_quoted_escapes_and_escaped_line_break() -> None:
    text = '- k: "a\\tb\\u00e9\\U0001F600 c\\\n    d"\n'
    scalar = the_scalar(text)
    assert scalar.text == "a\tbé😀 cd"
    mapped = map_scalar(text, scalar)
    assert mapped is not None
    starts, ends = mapped
    assert text[starts[3]:ends[3]] == "\\u00e9"
    assert text[starts[7]] == "d"


def test_unreproducible_scalar_gives_none() -> None:
    text = "- k: abc\n"
    scalar = the_scalar(text)
    scalar.text = "something else"
    assert map_scalar(text, scalar) is None


@settings(max_examples=300, deadline=None)
@given(TEXT, st.sampled_from(STYLES))
def test_verbatim_shortcut_agrees_with_the_rescan(value: str, style: str | None) -> None:
    try:
        text = emit(value, style, 80, 2)
    except yaml.YAMLError:
        return
    scalar = the_scalar(text)
    mapped = map_scalar(text, scalar)
    assert mapped is not None
    field = ScalarText(scalar, SourceText(text))
    starts, ends = mapped
    for index in range(len(scalar.text)):
        assert field.source_span(index, index + 1) == (starts[index], ends[index])


class _SearchCountingText(str):
    """A document that counts the characters its `rfind` calls search (from the end of the
    range back to the match, or the whole range when there is none)."""

    searched = 0

    def rfind(self, sub: str, start: SupportsIndex | None = None,
              end: SupportsIndex | None = None) -> int:
        first = 0 if start is None else int(start)
        last = len(self) if end is None else int(end)
        found = super().rfind(sub, first, last)
        type(self).searched += max(last - (first if found == -1 else found), 0)
        return found


def test_a_block_scalar_is_mapped_without_searching_the_text_before_it() -> None:
    """Finding each line's start searched for a "\\r" from the document's start: every line of a
    block scalar cost the whole text before it (quadratic in a large file)."""
    searched = []
    for padding in (10, 10_000):
        text = "".join(f"- k{i}: v\n" for i in range(padding)) + "- k: |\n    one\n    two\n"
        root = read_yaml(SourceText(text)).root
        assert isinstance(root, YSequence) and isinstance(root.items[-1], YMapping)
        scalar = root.items[-1].entries[0].value
        assert isinstance(scalar, YScalar)
        _SearchCountingText.searched = 0
        assert map_scalar(_SearchCountingText(text), scalar) is not None
        searched.append(_SearchCountingText.searched)
    assert searched[0] == searched[1]
