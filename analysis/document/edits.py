"""YAML text surgery for fixes: edits that keep the document valid YAML in the style it is written
in (block or flow collections, its line breaks and indentation, each scalar's quoting).

Every function answers a `Replacement` in document offsets (code points), or None when the
change cannot be written exactly there; `fix` turns replacements into a diagnostic's `Fix`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from analysis.diagnostics import Edit, Fix
from analysis.document.scalar_offsets import ScalarText
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YEntry, YMapping, YNode, YScalar, YSequence
from analysis.document.yaml_profile import resolve_plain

# (start offset, end offset, new text) in the document's code points
Replacement = tuple[int, int, str]

# What a plain scalar may gain in place in any context (block or flow): no indicator, quote or
# comment character, which could end the scalar or change what it is (one that is an indicator
# only at the scalar's start may not come first).
_PLAIN_SAFE = re.compile(r"[A-Za-z0-9_.$ +\-*/=<>!?()]*\Z")
_FLOW_INDICATORS = frozenset(",[]{}:#'\"")


def fix(source: SourceText, title: str, replacements: Iterable[Replacement], *, safe: bool) -> Fix:
    return Fix(
        title,
        tuple(Edit(source.range(start, end), new_text) for start, end, new_text in replacements),
        safe,
    )


def newline_of(text: str) -> str:
    """The line break a new line should end with: CRLF when the document uses it."""
    return "\r\n" if "\r\n" in text else "\n"


def indentation_at(text: str, offset: int) -> tuple[int, str]:
    """(where the line holding `offset` starts, the spaces it starts with before `offset`)."""
    line_start = text.rfind("\n", 0, offset) + 1
    prefix = text[line_start:offset]
    return line_start, prefix[: len(prefix) - len(prefix.lstrip(" "))]


def flow_scalar(value: str) -> str:
    """`value` as a YAML flow scalar that reads back as the same string: plain when it can be,
    single-quoted otherwise."""
    plain = (
        value
        and resolve_plain(value) == value
        and not any(ch in _FLOW_INDICATORS for ch in value)
        and value.strip() == value
    )
    return value if plain else "'" + value.replace("'", "''") + "'"


def append_item(text: str, sequence: YSequence, item: str, newline: str) -> Replacement:
    """Add `item` (flow text) after the sequence's last item: `, item` in a `[ … ]`, a new
    `- item` line at the items' indentation in a block sequence."""
    if text[sequence.start] == "[":
        if not sequence.items:
            return (sequence.start, sequence.end, f"[{item}]")
        last = sequence.items[-1]
        return (last.end, last.end, f", {item}")
    last = sequence.items[-1]
    dash = text.rfind("-", 0, last.start)
    indent = text[text.rfind("\n", 0, dash) + 1:dash]
    end = last.end
    while end > last.start and text[end - 1] in " \t\r\n":
        end -= 1
    return (end, end, f"{newline}{indent}- {item}")


def remove_entry(text: str, entry: YEntry) -> Replacement | None:
    """Delete a mapping entry: its whole line in a block mapping, the entry and one comma in a
    flow mapping; None when the line holds more than the entry (kept simple and safe)."""
    line_start = text.rfind("\n", 0, entry.key.start) + 1
    line_end = text.find("\n", entry.value.end)
    line_end = len(text) if line_end == -1 else line_end + 1
    before = text[line_start:entry.key.start]
    after = text[entry.value.end:line_end]
    if before.strip() == "" and after.strip() == "":
        return (line_start, line_end, "")
    following = len(after) - len(after.lstrip(" "))
    if after.lstrip(" ").startswith(","):
        end = entry.value.end + following + 1
        while end < len(text) and text[end] == " ":
            end += 1
        return (entry.key.start, end, "")
    preceding = before.rstrip(" ")
    if preceding.endswith(","):
        return (line_start + len(preceding) - 1, entry.value.end, "")
    return None


def replace_in_scalar(scalar_text: ScalarText, start: int, end: int, new: str
                      ) -> Replacement | None:
    """Replace `[start, end)` of a string scalar's decoded value with `new`, written as that
    scalar's style needs (escaped in quotes; a plain scalar gaining a quote, bracket or other
    indicator is single-quoted whole, as it may sit in a flow collection). None when the
    scalar's offsets are not exact or `new` spans lines."""
    if "\n" in new or "\r" in new or not scalar_text.exact:
        return None
    scalar = scalar_text.scalar
    source_start, source_end = scalar_text.source_span(start, end)
    if scalar.style == '"':
        return (source_start, source_end, new.replace("\\", "\\\\").replace('"', '\\"'))
    if scalar.style == "'":
        return (source_start, source_end, new.replace("'", "''"))
    if scalar.style is not None:  # a block scalar takes any text within a line
        return (source_start, source_end, new)
    value = scalar_text.value
    changed = value[:start] + new + value[end:]
    keeps_ends = (start > 0 or new[:1].isalnum()) and (end < len(value) or new[-1:] != " ")
    if _PLAIN_SAFE.match(new) and keeps_ends and resolve_plain(changed) == changed:
        return (source_start, source_end, new)
    if "\n" in scalar_text.source.text[scalar.content_start:scalar.end]:
        return None  # a folded plain scalar: quoting it would join or keep lines differently
    return (scalar.content_start, scalar.end, "'" + changed.replace("'", "''") + "'")


def append_entry(text: str, mapping: YMapping, entry: str, newline: str) -> Replacement | None:
    """Add `entry` (`key: value` flow text) after the mapping's last entry: `, entry` in a
    `{ … }`, a new line at the entries' indentation in a block mapping (after any comment ending
    the last entry's line). None for an empty mapping or a block mapping ending in a block
    scalar, whose kept line breaks a new line would change."""
    if not mapping.entries:
        return None
    last = mapping.entries[-1]
    if text[mapping.start] == "{":
        return (last.value.end, last.value.end, f", {entry}")
    if isinstance(last.value, YScalar) and last.value.style in ("|", ">"):
        return None
    first_key = mapping.entries[0].key.start
    column = first_key - (text.rfind("\n", 0, first_key) + 1)
    value_end = last.value.end
    while value_end > last.value.start and text[value_end - 1] in " \t\r\n":
        value_end -= 1  # a nested block collection's span takes in its final line break
    line_end = text.find("\n", value_end)
    end = len(text) if line_end == -1 else line_end
    if end > 0 and text[end - 1] == "\r":
        end -= 1
    return (end, end, f"{newline}{' ' * column}{entry}")


def remove_item(text: str, sequence: YSequence, item: YNode) -> Replacement | None:
    """Delete an item of a block sequence: its dash line through its last line. None in a flow
    sequence, or when another item or text shares those lines."""
    if text[sequence.start] == "[":
        return None
    dash = text.rfind("-", 0, item.start)
    line_start = text.rfind("\n", 0, dash) + 1
    if text[line_start:dash].strip() or text[dash + 1:item.start].strip():
        return None
    end = item.end
    while end > item.start and text[end - 1] in " \t\r\n":
        end -= 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end + 1
    rest = text[end:line_end].strip()
    if rest and not rest.startswith("#"):
        return None
    return (line_start, line_end, "")
