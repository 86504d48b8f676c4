"""Fixes several rules offer alike: a misspelt name changed to the rule's own suggestion."""

from __future__ import annotations

from analysis.diagnostics import Fix
from analysis.document.edits import fix, replace_in_scalar
from analysis.document.scalar_offsets import ScalarText
from analysis.document.source import SourceText


def _changing(name: str, new_name: str) -> str:
    return f"Change `{name}` to `{new_name}`"


def change_name(source: SourceText, span: tuple[int, int], name: str, new_name: str | None
                ) -> tuple[Fix, ...]:
    """The name written in the document `span` (a quoted or `id:handle` scalar holds more than
    the name) changed to `new_name` (the rule's suggestion, if it has one). A guess among the
    names there: not safe."""
    start, end = span
    at = source.text.find(name, start, end) if name else -1
    if new_name is None or at < 0:
        return ()
    return (fix(source, _changing(name, new_name), [(at, at + len(name), new_name)], safe=False),)


def change_name_in(scalar_text: ScalarText, start: int, end: int, new_name: str | None
                   ) -> tuple[Fix, ...]:
    """The name at `[start, end)` of a scalar's decoded value (a template's reference) changed to
    `new_name` (the rule's suggestion, if it has one), written as the scalar's quoting needs.
    Not safe: a guess."""
    if new_name is None:
        return ()
    replacement = replace_in_scalar(scalar_text, start, end, new_name)
    if replacement is None:
        return ()
    title = _changing(scalar_text.value[start:end], new_name)
    return (fix(scalar_text.source, title, [replacement], safe=False),)
