"""`View`: mapping offsets between the client's live text and an older analysed text."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from analysis.checks.analyze import analyze
from server.lsp.documents import Snapshot
from server.lsp.serving import View

TEXT = st.text(alphabet=st.sampled_from("ab\né😀"), max_size=30)
EDIT = st.text(alphabet=st.sampled_from("xyz"), max_size=5)


def view(old: str, new: str) -> View:
    # the snapshot's line index comes from its analysis, so the analysis must be of `old`
    return View(Snapshot("file:///w.relavium.yaml", 1, old, analyze(old), "utf-16"), new)


@given(TEXT, EDIT, EDIT, TEXT)
def test_unchanged_places_map_both_ways(before: str, removed: str, added: str,
                                        after: str) -> None:
    # edit characters differ from the context's, and the edit's ends differ: one alignment only
    assume(not removed or not added or (removed[0] != added[0] and removed[-1] != added[-1]))
    old, new = before + removed + after, before + added + after
    mapping = view(old, new)
    prefix, suffix = mapping._common
    assert old[:prefix] == new[:prefix] and prefix + suffix <= min(len(old), len(new))
    assert suffix == 0 or old[-suffix:] == new[-suffix:]
    assert prefix in (len(old), len(new)) or old[prefix] != new[prefix]
    for offset in range(len(before) + 1):
        assert mapping.to_live(offset) == offset and mapping.to_snapshot(offset) == offset
    for index in range(len(after)):  # (the edit's own end may map to either side of it)
        old_offset, new_offset = len(old) - index, len(new) - index
        assert mapping.to_live(old_offset) == new_offset
        assert mapping.to_snapshot(new_offset) == old_offset


def test_edited_places_have_no_live_counterpart() -> None:
    mapping = view("to: ab }", "to: xyz }")
    assert mapping.to_live(len("to: a")) is None  # inside the edit
    assert mapping.to_snapshot(len("to: xy")) is None  # text the analysis has not seen
    assert mapping.to_snapshot(len("to: ")) == len("to: ")
    assert mapping.to_live(len("to: ab }")) == len("to: xyz }")


def test_client_positions_count_utf16_units() -> None:
    mapping = view("a: 😀é x\n", "a: 😀é x\n")
    assert mapping.client_point(len("a: 😀é ")) == (0, 7)
    assert mapping.client_point(len("a: ")) == (0, 3)
    range_ = mapping.client_range(len("a: 😀"), len("a: 😀é"))
    assert range_ is not None and (range_.start.character, range_.end.character) == (5, 6)
