"""The one span an edit replaced (`analysis.document.source.changed_span`): what the incremental
YAML read reads again, and what the server sends the analysis process instead of a whole text."""

from __future__ import annotations

import unittest.mock

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.document import source
from analysis.document.source import changed_span


@settings(max_examples=300, deadline=None)
@given(
    common=st.tuples(st.text("ab\nÄ😀"), st.text("ab\nÄ😀")),
    removed=st.text("ab\nÄ😀", max_size=12),
    inserted=st.text("ab\nÄ😀", max_size=12),
    chunk=st.integers(1, 9),
)
def test_a_difference_is_the_one_span_replaced(
    common: tuple[str, str], removed: str, inserted: str, chunk: int
) -> None:
    old, new = common[0] + removed + common[1], common[0] + inserted + common[1]
    with unittest.mock.patch.object(source, "_CHUNK", chunk):
        start, end, new_end = changed_span(old, new)
    replaced_by = new[start:new_end]
    assert new == old[:start] + replaced_by + old[end:]
    prefix = common_prefix_length(old, new)
    assert start == prefix  # the longest common prefix, then the longest suffix of the rest
    rest_old, rest_new = old[prefix:], new[prefix:]
    suffix = common_prefix_length(rest_old[::-1], rest_new[::-1])
    assert (len(old) - end, len(replaced_by)) == (suffix, len(rest_new) - suffix)


def common_prefix_length(first: str, second: str) -> int:
    length = 0
    while length < min(len(first), len(second)) and first[length] == second[length]:
        length += 1
    return length
