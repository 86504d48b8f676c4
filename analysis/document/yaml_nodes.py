"""The tree a YAML read gives: nodes with their spans (`[start, end)` document offsets, code
points), the document (root and reader-level problems) and the in-place move of subtrees that a
`take_over` read makes and `Moved.undo` reverses.

Mappings keep their entries in authored order, indexed by key text (the first entry of a
duplicated key: the reader reports the others and drops them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from analysis.diagnostics import Diagnostic
from analysis.document.source import SourceText

ScalarValue = str | int | float | bool | None


@dataclass(eq=False, slots=True)
class YNode:
    start: int
    end: int

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)


@dataclass(eq=False, slots=True)
class YScalar(YNode):
    """A scalar. `text` is the decoded string; `value` its core-schema value."""

    text: str
    value: ScalarValue
    # None (plain), "'", '"', "|" or ">" — the five YAML scalar styles.
    style: str | None
    # Where the scalar's own text starts (after any `!tag`/`&anchor` properties).
    content_start: int


@dataclass(eq=False, slots=True)
class YAlias(YNode):
    """An alias (already reported, never expanded); its span is the anchored node's."""


@dataclass(eq=False, slots=True)
class YEntry:
    key: YScalar
    value: YNode


@dataclass(eq=False, slots=True)
class YMapping(YNode):
    entries: list[YEntry] = field(default_factory=list)
    _index: dict[str, YEntry] = field(default_factory=dict, repr=False)

    def get(self, key: str) -> YEntry | None:
        return self._index.get(key)

    def keys(self) -> list[str]:
        return [entry.key.text for entry in self.entries]


@dataclass(eq=False, slots=True)
class YSequence(YNode):
    items: list[YNode] = field(default_factory=list)


@dataclass
class YamlDocument:
    source: SourceText
    root: YNode | None
    problems: list[Diagnostic]
    # What a `take_over` read moved in the earlier tree, until the analysis that asked is done.
    moved: Moved | None = field(default=None, repr=False, compare=False)

    @cached_property
    def scalar_spans(self) -> list[tuple[int, int]]:
        """Every scalar's span, sorted, for "is this offset inside a scalar?" questions."""
        spans: list[tuple[int, int]] = []
        stack = [self.root] if self.root is not None else []
        while stack:
            node = stack.pop()
            if isinstance(node, YScalar):
                spans.append(node.span)
            elif isinstance(node, YMapping):
                for entry in node.entries:
                    spans.append(entry.key.span)
                    stack.append(entry.value)
            elif isinstance(node, YSequence):
                stack.extend(node.items)
        spans.sort()
        return spans


def plain_value(node: YNode) -> Any:
    """The node as plain Python data (dicts, lists, core-schema scalars); iterative, any depth."""
    result: list[Any] = []
    stack: list[tuple[YNode, Any, Any]] = [(node, result, None)]
    while stack:
        current, parent, key = stack.pop()
        if isinstance(current, YScalar):
            value: Any = current.value
        elif isinstance(current, YAlias):
            value = None
        elif isinstance(current, YMapping):
            value = dict.fromkeys(current.keys())
            stack.extend((entry.value, value, entry.key.text) for entry in current.entries)
        else:
            assert isinstance(current, YSequence)
            value = [None] * len(current.items)
            stack.extend((item, value, index) for index, item in enumerate(current.items))
        if key is None and parent is result:
            result.append(value)
        else:
            parent[key] = value
    return result[0]


@dataclass(eq=False, slots=True)
class Moved:
    """The subtrees of an earlier tree a `take_over` read moved `delta` characters on in
    place."""

    nodes: list[YNode]
    delta: int

    def undo(self) -> None:
        """Move them back: the earlier tree is again exactly what it was."""
        move_spans(self.nodes, -self.delta)


def move_spans(nodes: list[YNode], delta: int) -> None:
    """Move the subtrees `delta` characters on, in place (iterative: any depth). Scalars, most
    of the nodes, are collected and moved in one loop rather than pushed and popped."""
    scalar = YScalar
    stack: list[Any] = []
    scalars: list[Any] = []
    push, add = stack.append, scalars.append
    for node in nodes:
        (add if node.__class__ is scalar else push)(node)
    while stack:
        current = stack.pop()
        current.start += delta
        current.end += delta
        kind = current.__class__
        if kind is YMapping:
            for entry in current.entries:
                add(entry.key)
                value = entry.value
                (add if value.__class__ is scalar else push)(value)
        elif kind is YSequence:
            for child in current.items:
                (add if child.__class__ is scalar else push)(child)
    for moved in scalars:
        moved.start += delta
        moved.end += delta
        moved.content_start += delta

