"""The fix loop `check --fix` runs (analysis/checks/apply_fixes.py), on diagnostics made up to
pin its rules: one fix per finding, overlapping edits held to the next pass, safe ones only
unless asked, and an end even when fixes undo each other."""

from __future__ import annotations

from analysis.checks.apply_fixes import MAX_PASSES, fix_text, one_pass
from analysis.diagnostics import Diagnostic, Edit, Fix, Severity
from analysis.document.source import SourceText


def finding(text: str, rule: str, *fixes: tuple[int, int, str, bool]) -> Diagnostic:
    source = SourceText(text)
    return Diagnostic(
        source.range(0, 0), Severity.ERROR, rule, "m",
        fixes=tuple(Fix("t", (Edit(source.range(start, end), new),), safe)
                    for start, end, new, safe in fixes),
    )


def test_non_overlapping_fixes_are_made_in_one_pass_from_the_end() -> None:
    text = "aaa bbb ccc"
    found = [finding(text, "r", (0, 3, "x", True)), finding(text, "r", (8, 11, "zz", True))]
    assert one_pass(text, found, unsafe=False)[0] == "x bbb zz"


def test_an_overlapping_fix_waits_and_the_first_alternative_is_the_one_made() -> None:
    text = "aaa bbb"
    found = [finding(text, "r", (0, 5, "x", True)), finding(text, "s", (4, 7, "y", True)),
             finding(text, "t", (4, 4, "+", True), (0, 0, "never", True))]
    new_text, fixed = one_pass(text, found, unsafe=False)
    assert new_text == "xbb"
    assert fixed == {"r": 1}


def test_unsafe_fixes_only_when_asked() -> None:
    text = "abc"
    found = [finding(text, "r", (0, 1, "z", False))]
    assert one_pass(text, found, unsafe=False)[0] == "abc"
    assert one_pass(text, found, unsafe=True)[0] == "zbc"


def test_passes_repeat_to_a_fixed_point() -> None:
    # Each pass may fix the first 'a' only: three passes, then nothing is left to fix.
    def diagnose(text: str) -> list[Diagnostic]:
        at = text.find("a")
        return [] if at < 0 else [finding(text, "r", (at, at + 1, "b", True))]

    outcome = fix_text("xaaa", diagnose)
    assert (outcome.text, outcome.fixed_count, outcome.remaining) == ("xbbb", 3, [])


def test_fixes_undoing_each_other_stop() -> None:
    calls = []

    def diagnose(text: str) -> list[Diagnostic]:
        calls.append(text)
        return [finding(text, "r", (0, 1, "b" if text[0] == "a" else "a", True))]

    outcome = fix_text("a", diagnose)
    assert outcome.text == "b"
    assert len(calls) <= MAX_PASSES + 1
