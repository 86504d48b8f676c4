"""Applying the fixes diagnostics carry to a document's text, as `check --fix` does (ruff's loop).

Each pass takes, for every diagnostic, its first fix the caller allows (safe ones, or every one
with `unsafe`), keeps those whose edits touch no edit already taken (earlier diagnostics first),
makes them all at once from the end of the text, and re-analyses; passes repeat until none
applies, the text comes back to a state it had, or `MAX_PASSES` is reached. Only
`Diagnostic.fixes` are applied: the "Ignore…" suppression fixes are built by the editor, never
attached to a diagnostic, so a fix here corrects and never hides.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from analysis.diagnostics import Diagnostic, Fix
from analysis.document.source import SourceText

# ruff stops at 100; our fixes each remove their finding, so a few passes reach the fixed point
# and more would mean two fixes undoing each other.
MAX_PASSES = 20

# (start offset, end offset, new text) in the text's code points
_Span = tuple[int, int, str]


@dataclass(frozen=True)
class FixOutcome:
    """The text once fixed, how many findings of each rule a fix was applied for, and the
    diagnostics of the fixed text."""

    text: str
    fixed: Counter[str]
    remaining: list[Diagnostic]

    @property
    def fixed_count(self) -> int:
        return sum(self.fixed.values())


def applicable(diagnostic: Diagnostic, unsafe: bool) -> Fix | None:
    """The fix `--fix` makes for the diagnostic: its first safe one (or its first, with
    `unsafe`) that creates no file; a diagnostic's fixes are alternatives, so at most one is
    made."""
    for candidate in diagnostic.fixes:
        if candidate.edits and not candidate.creates and (candidate.safe or unsafe):
            return candidate
    return None


def _overlaps(span: _Span, taken: list[_Span]) -> bool:
    start, end, _ = span
    # Two edits at one point (insertions there, or an insertion where a replacement starts)
    # have no order to make them in, so they are kept apart like overlapping ones.
    return any((start < other_end and other_start < end) or start == other_start
               for other_start, other_end, _ in taken)


def one_pass(text: str, diagnostics: list[Diagnostic], unsafe: bool
             ) -> tuple[str, Counter[str]]:
    """The text with every non-conflicting applicable fix made, and the rules fixed."""
    source = SourceText(text)
    taken: list[_Span] = []
    seen: set[tuple[_Span, ...]] = set()
    fixed: Counter[str] = Counter()
    for diagnostic in diagnostics:
        chosen = applicable(diagnostic, unsafe)
        if chosen is None:
            continue
        spans = tuple(sorted((source.offset(edit.range.start), source.offset(edit.range.end),
                              edit.new_text) for edit in chosen.edits))
        if spans in seen:
            # Two findings with one answer (the same edge missing twice): made once.
            fixed[diagnostic.rule] += 1
            continue
        if any(_overlaps(span, taken) for span in spans) or any(
                _overlaps(span, [other for other in spans if other is not span])
                for span in spans):
            continue
        seen.add(spans)
        taken.extend(spans)
        fixed[diagnostic.rule] += 1
    for start, end, new_text in sorted(taken, reverse=True):
        text = text[:start] + new_text + text[end:]
    return text, fixed


def fix_text(text: str, diagnose: Callable[[str], list[Diagnostic]], *, unsafe: bool = False
             ) -> FixOutcome:
    """`text` with its fixes applied to a fixed point; `diagnose` analyses a text (with the
    project's rule levels, so a rule turned off is not fixed either)."""
    fixed: Counter[str] = Counter()
    states = {text}
    diagnostics = diagnose(text)
    for _ in range(MAX_PASSES):
        new_text, rules = one_pass(text, diagnostics, unsafe)
        if not rules or new_text in states:
            break
        fixed += rules
        states.add(new_text)
        text = new_text
        diagnostics = diagnose(text)
    return FixOutcome(text, fixed, diagnostics)
