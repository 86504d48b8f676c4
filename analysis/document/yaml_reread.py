"""Reading again only the list item or top-level entry that an edit falls in, when that is
provably what a full read gives; the nodes after the edit carried on as copies or, with
`take_over`, moved in place (`Moved` undoes it).

A block-sequence item whose `-` starts its line at column k spans every following line up to
the first one indented k or less that is neither blank nor a comment (its *boundary*); libyaml
reads the item's lines the same way whatever encloses it, since inside them no column is k or
less. So when an edit falls inside one item (after its `-`, before its boundary) and leaves
the boundary where it was, composing that item's lines alone gives the nodes a full read
gives, with two differences fixed here: offsets (the lines are read from where they start)
and where a collection that runs to the boundary ends (libyaml ends it at the boundary's
first token; alone, at the end of the lines). A top-level entry of a block mapping is read
the same way, with k = 0 (its key at column 0; `_reread_top_entry`). Anything else — a syntax
error, an anchor, a tag warning, a tab, a CR, a previous version with problems — reads the
whole text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any

from analysis.document.source import SourceText, changed_span
from analysis.document.yaml_compose import read_lines
from analysis.document.yaml_nodes import (
    Moved,
    YamlDocument,
    YEntry,
    YMapping,
    YNode,
    YScalar,
    YSequence,
    move_spans,
)
from analysis.document.yaml_profile import for_libyaml

_ITEM_PREFIX = re.compile(r"( *)- +\Z")


def reread(source: SourceText, previous: YamlDocument, take_over: bool) -> YamlDocument | None:
    """`source` read from `previous` (the same document before an edit), or None when only a
    full read can tell what it holds."""
    old, new = previous.source.text, source.text
    root = previous.root
    if (root is None or previous.problems or not new.endswith("\n") or "\r" in new
            or "\r" in old or new.startswith("\ufeff") or old.startswith("\ufeff")
            or for_libyaml(new) != (new, None)):
        return None
    start, changed_end, _ = changed_span(old, new)
    delta = len(new) - len(old)
    # the candidate items containing the edit, outermost first; the innermost is tried first
    for path, item_start, indent in reversed(_items_at(root, old, start)):
        line_start = item_start - len(old[:item_start].rpartition("\n")[2])
        if start <= line_start + indent:
            continue  # the edit touches the `-` or what is before it
        end, boundary_indent = _item_end(old, line_start, indent)
        if changed_end > end:
            continue  # the edit reaches the boundary
        if _item_end(new, line_start, indent) != (end + delta, boundary_indent):
            return None  # the edit moved the boundary: lines joined or split the item
        lines = new[line_start : end + delta]
        if "&" in lines or "\t" in lines:
            return None
        region = _read_region(source, lines, line_start, boundary_indent)
        if not isinstance(region, YSequence) or len(region.items) != 1:
            return None
        carry = _Carry(delta, take_over)
        return carry.document(source, _replaced(path, region.items[0], carry))
    return _reread_top_entry(source, root, old, new, start, changed_end, take_over)


def _reread_top_entry(source: SourceText, root: YNode, old: str, new: str, start: int,
                      changed_end: int, take_over: bool) -> YamlDocument | None:
    """The same for a top-level entry of a block mapping (its key first on its line, column 0):
    it spans the lines up to the next one that starts with content at column 0. The edit may
    change the key (it must stay unique) but not its first column; a line at column 0 that
    starts with `-` or a document marker ends no entry (an indentless list, a new document):
    then the whole text is read."""
    if (not isinstance(root, YMapping) or not root.entries
            or root.entries[0].key.start != root.start):
        return None  # not a block mapping (a flow mapping starts with its `{`)
    index = bisect_right([entry.key.start for entry in root.entries], start) - 1
    if index < 0:
        return None
    line_start = root.entries[index].key.start
    if (line_start != 0 and old[line_start - 1] != "\n") or start <= line_start:
        return None  # the key is not first on its line, or the edit touches its first column
    delta = len(new) - len(old)
    end, _ = _item_end(old, line_start, 0)
    if changed_end > end or _item_end(new, line_start, 0) != (end + delta, 0):
        return None
    lines = new[line_start : end + delta]
    if "&" in lines or "\t" in lines or new.startswith(("-", "..."), end + delta):
        return None
    region = _read_region(source, lines, line_start, 0)
    if not isinstance(region, YMapping) or len(region.entries) != 1:
        return None
    entry = region.entries[0]
    known = root.get(entry.key.text)
    if known is not None and known is not root.entries[index]:
        return None  # the new key repeats another one: a duplicate-key problem
    carry = _Carry(delta, take_over)
    entries = [*root.entries[:index], entry, *carry.entries(root.entries[index + 1 :])]
    return carry.document(source, YMapping(root.start, root.end + delta, entries,
                                           {entry.key.text: entry for entry in entries}))


Path = list[tuple[YMapping | YSequence, int]]


def _items_at(root: YNode, text: str, offset: int) -> list[tuple[Path, int, int]]:
    """Every block-sequence item (its `-` first on its line) on the way down to `offset`: the
    path to it (each collection and the index taken in it), its start and its `-`'s column."""
    found: list[tuple[Path, int, int]] = []
    path: Path = []
    node = root
    while isinstance(node, YMapping | YSequence):
        starts = ([item.start for item in node.items] if isinstance(node, YSequence)
                  else [entry.key.start for entry in node.entries])
        index = bisect_right(starts, offset) - 1
        if index < 0:
            break
        path = [*path, (node, index)]
        if isinstance(node, YSequence):
            child = node.items[index]
            prefix = _ITEM_PREFIX.match(text[:child.start].rpartition("\n")[2])
            if prefix is not None:
                found.append((path, child.start, len(prefix.group(1))))
        else:
            child = node.entries[index].value
        node = child
    return found


def _item_end(text: str, line_start: int, indent: int) -> tuple[int, int]:
    """Where the item whose `-` is at column `indent` of the line at `line_start` ends (its
    boundary line's start, or the text's end) and the boundary line's indentation."""
    position = text.find("\n", line_start) + 1
    while 0 < position < len(text):
        line_end = text.find("\n", position)
        line = text[position : line_end if line_end != -1 else len(text)]
        content = line.lstrip(" ")
        column = len(line) - len(content)
        if content and content[0] != "#" and column <= indent:
            return position, column
        position = line_end + 1 if line_end != -1 else len(text)
    return len(text), 0


def _read_region(source: SourceText, lines: str, line_start: int,
                 boundary_indent: int) -> YNode | None:
    """The nodes of `lines` (the text from `line_start` on) read alone, at their offsets in the
    document, collections that run to the boundary ending where a full read ends them; None
    when they do not compose or have a problem."""
    tree = read_lines(source, lines, line_start)
    if tree is None:
        return None
    end = line_start + len(lines)
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, YMapping):
            stack.extend(entry.value for entry in node.entries)
        elif isinstance(node, YSequence):
            stack.extend(node.items)
        else:
            continue
        if node.end == end:
            node.end += boundary_indent
    return tree


def _replaced(path: Path, item: YNode, carry: _Carry) -> YNode:
    """The tree along `path` with its last step's child replaced by `item`: the collections on
    the path are new (their ends moved by `carry.delta`), what comes before the edit is shared,
    what comes after it is carried `delta` further on."""
    built = item
    for node, index in reversed(path):
        if isinstance(node, YSequence):
            items = [*node.items[:index], built, *carry.nodes(node.items[index + 1 :])]
            built = YSequence(node.start, node.end + carry.delta, items)
        else:
            entry = node.entries[index]
            entries = [*node.entries[:index], YEntry(entry.key, built),
                       *carry.entries(node.entries[index + 1 :])]
            built = YMapping(node.start, node.end + carry.delta, entries,
                             {entry.key.text: entry for entry in entries})
    return built


class _Carry:
    """How an incremental read carries the nodes after the edit `delta` characters on: copies
    (the earlier tree stays as it was), or with `take_over` the nodes themselves, moved in
    place and listed for `Moved.undo`. Nothing moves when the edit keeps the length."""

    def __init__(self, delta: int, take_over: bool) -> None:
        self.delta = delta
        self.moved: list[YNode] | None = [] if take_over else None

    def nodes(self, nodes: list[YNode]) -> list[YNode]:
        delta, moved = self.delta, self.moved
        if delta == 0:
            return nodes
        if moved is None:
            return [_shifted(node, delta) for node in nodes]
        move_spans(nodes, delta)
        moved += nodes
        return nodes

    def entries(self, entries: list[YEntry]) -> list[YEntry]:
        delta, moved = self.delta, self.moved
        if delta == 0:
            return entries
        if moved is None:
            return [YEntry(_shifted(entry.key, delta), _shifted(entry.value, delta))
                    for entry in entries]
        carried = [node for entry in entries for node in (entry.key, entry.value)]
        move_spans(carried, delta)
        moved += carried
        return entries

    def document(self, source: SourceText, root: YNode) -> YamlDocument:
        document = YamlDocument(source, root, [])
        if self.moved:
            document.moved = Moved(self.moved, self.delta)
        return document


def _shifted(node: Any, delta: int) -> Any:
    """A copy of the subtree `delta` characters further on (iterative: any depth). Scalars are
    built inline: a call per scalar was a sixth of the copy, which is most of an incremental
    read."""
    scalar = YScalar
    if node.__class__ is scalar:
        return scalar(node.start + delta, node.end + delta, node.text, node.value, node.style,
                      node.content_start + delta)
    copy = node.__class__(node.start + delta, node.end + delta)
    stack: list[tuple[Any, Any]] = [(node, copy)]
    push = stack.append
    while stack:
        original, target = stack.pop()
        if original.__class__ is YSequence:
            items = target.items
            for child in original.items:
                if child.__class__ is scalar:
                    items.append(scalar(child.start + delta, child.end + delta, child.text,
                                        child.value, child.style, child.content_start + delta))
                else:
                    items.append(moved := child.__class__(child.start + delta, child.end + delta))
                    push((child, moved))
        elif original.__class__ is YMapping:
            entries, index = target.entries, target._index
            for entry in original.entries:
                key, value = entry.key, entry.value
                if value.__class__ is scalar:
                    moved = scalar(value.start + delta, value.end + delta, value.text,
                                   value.value, value.style, value.content_start + delta)
                else:
                    moved = value.__class__(value.start + delta, value.end + delta)
                    push((value, moved))
                index[key.text] = copied = YEntry(
                    scalar(key.start + delta, key.end + delta, key.text, key.value, key.style,
                           key.content_start + delta), moved)
                entries.append(copied)
    return copy
