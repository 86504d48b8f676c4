"""Reading the text being typed for completion: the YAML key the cursor's value belongs to and
its neighbours, read from the live lines around the cursor (`Cursor`), and the schema's view of
a half-typed line (`schema_place`).

Contract:
- `Cursor(text, offset).field()` is the key whose value holds the cursor (`Field`: the key, where
  it is written, and the value typed before the cursor on its line), or None; `sibling(field,
  name)` the one-word value of another key of the same mapping (an item's `id`, an edge's
  `from`); `parent(field)` the key of the collection holding the mapping (`nodes`, `inputs`).
- `schema_place(text, start, end, replacement)` is `analysis.schema.lookups.spec_at` in `text`
  with `text[start:end]` replaced by `replacement` (`PLACEHOLDER` for a key or value being
  typed), a flow collection left open on the line closed; in a long file only the lines that
  decide the offset's spec are read (`focused`). None when it does not read as YAML.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate

from analysis.document.model import DATA_EDGE_FIELDS, EXPRESSION_FIELDS
from analysis.document.source import SourceText
from analysis.document.yaml_read import read_yaml
from analysis.schema.lookups import Place, spec_at
from analysis.schema.vocabulary import Spec
from analysis.schema.workflow import ROOT

EXPRESSION_KEYS = frozenset(EXPRESSION_FIELDS.values())
TEMPLATE_KEYS = DATA_EDGE_FIELDS | {"save_to", "value"}

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# a mapping key at the start of a line (after list dashes) or after `{` / `,` in a flow mapping
_KEY = re.compile(r"(?:^[ \t]*(?:-[ \t]+)*|[{,][ \t]*)([A-Za-z_$][A-Za-z0-9_$-]*)[ \t]*:(?=\s|$)")
_BLOCK_KEY = re.compile(r"^([ \t]*)(-[ \t]+)?([A-Za-z_$][A-Za-z0-9_$-]*)[ \t]*:(?=\s|$)(.*)")
_FLOW_PARENT = re.compile(r"([A-Za-z_$][A-Za-z0-9_$-]*)[ \t]*:[ \t]*\{[^{}]*$")
_SCAN_LIMIT = 400  # lines to look back for a key or an item's id (a node is never this long)
_SCALAR_VALUE = re.compile(r"[ \t]*['\"]?([^'\",{}\[\]#\s]+)")


@dataclass(frozen=True)
class Field:
    """The YAML key whose value holds the cursor, and where it is written."""

    key: str
    line: int  # the line the key is on
    column: int  # the key's column
    same_line: bool  # the key is on the cursor's line
    value_prefix: str  # from after the key's `:` to the cursor when `same_line`


class Cursor:
    def __init__(self, text: str, offset: int) -> None:
        self.text = text
        self.offset = min(max(offset, 0), len(text))
        if "\r" in text:
            self.lines = _LINE_BREAK.split(text)
            self.line = len(_LINE_BREAK.findall(text, 0, self.offset))
            line_start = self.offset - len(_LINE_BREAK.split(text[: self.offset])[-1])
        else:  # the same with str methods: a keystroke in a 1,000-node file pays this each time
            self.lines = text.split("\n")
            self.line = text.count("\n", 0, self.offset)
            line_start = text.rfind("\n", 0, self.offset) + 1
        self.prefix = text[line_start : self.offset]
        rest = text[self.offset :]
        self.after = rest[: len(_LINE_BREAK.split(rest, maxsplit=1)[0])]

    def field(self) -> Field | None:
        """The key whose value the cursor is in: the key of a block or unclosed quoted scalar
        the line continues; else the first expression/template key on the line (what follows it
        is scalar text), else the line's last key; else the nearest less-indented key above."""
        above = self._enclosing_key()
        if above is not None and _opens_multiline(above[1]):
            return above[0]
        last = None
        for match in _KEY.finditer(self.prefix):
            last = Field(match.group(1), self.line, match.start(1), True,
                          self.prefix[match.end():])
            if last.key in EXPRESSION_KEYS or last.key in TEMPLATE_KEYS:
                break
        if last is not None:
            return last
        return above[0] if above is not None else None

    def _written_lines_above(self, line: int, indent: int) -> Iterator[tuple[int, str, int]]:
        """(line, text, indentation) of the non-blank, non-comment lines above `line` that are
        indented less than `indent`, nearest first (within the scan limit)."""
        for above in range(line - 1, max(line - _SCAN_LIMIT, -1), -1):
            content = self.lines[above]
            if not content.strip() or content.lstrip().startswith("#"):
                continue
            own = len(content) - len(content.lstrip(" \t"))
            if own < indent:
                yield above, content, own

    def _enclosing_key(self) -> tuple[Field, str] | None:
        """The nearest less-indented key line above the cursor's line, and the text after its
        colon."""
        line_text = self.lines[self.line]
        indent = len(line_text) - len(line_text.lstrip(" \t"))
        if not line_text.strip():
            indent = len(self.prefix)
        for line, content, _ in self._written_lines_above(self.line, indent):
            block = _BLOCK_KEY.match(content)
            if block is None:
                return None
            column = len(block.group(1)) + len(block.group(2) or "")
            return Field(block.group(3), line, column, False, ""), block.group(4)
        return None

    def sibling(self, field: Field, name: str) -> str | None:
        """The one-word value of key `name` in the mapping holding `field` (the item's id, an
        edge's `from`)."""
        line_text = self.lines[field.line]
        for match in _KEY.finditer(line_text):
            if match.group(1) == name and match.start(1) != field.column:
                found = _SCALAR_VALUE.match(line_text, match.end())
                if found is not None:
                    return found.group(1)
        # block mapping: look up to the item's dash, then down to the item's end
        for step in (-1, 1):
            line = field.line + step
            while 0 <= line < len(self.lines) and abs(line - field.line) < _SCAN_LIMIT:
                content = self.lines[line]
                block = _BLOCK_KEY.match(content)
                line += step
                if block is None:
                    if content.strip() and len(content) - len(content.lstrip()) <= field.column \
                            and not content.lstrip().startswith("#"):
                        break
                    continue
                column = len(block.group(1)) + len(block.group(2) or "")
                if column < field.column or (column == field.column and step > 0 and
                                             block.group(2)):
                    break
                if column == field.column and block.group(3) == name:
                    found = _SCALAR_VALUE.match(block.group(4))
                    return found.group(1) if found else None
                if column == field.column and block.group(2):
                    break  # the item's first line: nothing above belongs to it
        return None

    def parent(self, field: Field) -> str | None:
        """The key of the collection holding `field`'s mapping (`nodes`, `inputs`, `trigger`)."""
        if field.same_line:
            flow = _FLOW_PARENT.search(self.prefix[: field.column])
            if flow is not None:
                return flow.group(1)
        content = self.lines[field.line]
        target = len(content) - len(content.lstrip(" \t"))
        for _, content, own in self._written_lines_above(field.line, target):
            if own >= target:
                continue
            block = _BLOCK_KEY.match(content)
            if block is not None and block.group(2):
                target = own  # the list item holding us: its parent is further up
                continue
            return block.group(3) if block is not None else None
        return None


def _opens_multiline(rest: str) -> bool:
    """Whether a key's value text starts a scalar that continues on the next lines: a block
    scalar header or a quoted scalar left open."""
    value = rest.strip()
    if value[:1] in ("|", ">"):
        return True
    if value[:1] == "'":
        return value.replace("''", "").count("'") % 2 == 1
    if value[:1] == '"':
        return len(re.findall(r'(?<!\\)"', value)) % 2 == 1
    return False


PLACEHOLDER = "relavium-lsp-completion"


_FOCUS_FROM_LINES = 200  # below this, reading the whole text is as quick


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def focused(text: str, offset: int) -> tuple[str, int]:
    """`text` reduced to what decides the spec of the offset's line — the line, its ancestors,
    and the key lines of the mappings on the way (their values and other list items dropped) —
    and the offset in it. Reading that is what keeps completion quick in a file of thousands of
    lines. Block style only; callers fall back to the whole text when the result does not
    read."""
    lines = text.splitlines(keepends=True)
    if len(lines) < _FOCUS_FROM_LINES:
        return text, offset
    row = min(bisect.bisect_right(list(accumulate(map(len, lines), initial=0)), offset) - 1,
              len(lines) - 1)
    written = [bool(line.strip()) and not line.lstrip().startswith("#") for line in lines]
    indents = [_indent(line) for line in lines]
    dashes = [line.strip() == "-" or line.lstrip().startswith("- ") for line in lines]

    def ends(start: int, owner: int) -> int:
        """The end of `owner`'s block (a list item's, or a key's with its value), from start."""
        level = indents[owner]
        index = start
        while index < len(lines) and not (written[index] and (
                indents[index] < level or (indents[index] == level
                                           and (dashes[owner] or not dashes[index])))):
            index += 1
        return index

    keep = [True] * len(lines)
    child = row
    while child >= 0:
        parent = child - 1
        while parent >= 0 and not (written[parent] and (
                indents[parent] < indents[child]
                or (indents[parent] == indents[child] and dashes[child]
                    and not dashes[parent]))):
            parent -= 1
        subtree_end = ends(child + 1, child)
        region_end = ends(parent + 1, parent) if parent >= 0 else len(lines)
        for index in (*range(parent + 1, child), *range(subtree_end, region_end)):
            sibling_key = (written[index] and indents[index] == indents[child]
                           and not dashes[index] and not dashes[child])
            if not sibling_key:
                keep[index] = False
        child = parent
    removed_before = sum(len(lines[i]) for i in range(row) if not keep[i])
    return "".join(line for line, kept in zip(lines, keep, strict=True) if kept), \
        offset - removed_before


def _read_place(live: str, offset: int, schema: Spec) -> Place | None:
    text, at = focused(live, offset)
    place = spec_at(read_yaml(SourceText(text)).root, at, schema)
    if place is None and text is not live:
        place = spec_at(read_yaml(SourceText(live)).root, offset, schema)
    return place


def schema_place(text: str, start: int, end: int, replacement: str, schema: Spec = ROOT
                 ) -> Place | None:
    """`spec_at` in `text` (a document described by `schema`) with `text[start:end]` replaced (a
    placeholder for what is being typed, so that half-typed text still reads as YAML); None when
    it does not."""
    live = text[:start] + replacement + text[end:]
    place = _read_place(live, start, schema)
    if place is not None:
        return place
    # A flow collection left open on the line being typed (`{ type: ma`): close it there.
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    opened = []
    for char in re.sub(r"'[^']*'|\"[^\"]*\"", "", text[line_start:start]):
        if char in "{[":
            opened.append("}" if char == "{" else "]")
        elif char in "}]" and opened:
            opened.pop()
    if not opened:
        return None
    live = text[:start] + replacement + "".join(reversed(opened)) + text[line_end:]
    return _read_place(live, start, schema)
