"""Read YAML into a small node tree that keeps every node's span (document offsets).

Contract:
- `read_yaml(source)` composes the text with libyaml (`yaml.CSafeLoader`), never constructs
  Python objects with PyYAML's 1.1 resolver, and returns a `YamlDocument`: the root node (None when
  the text has a syntax error or is empty) and the reader-level problems as `Diagnostic`s
  (`yaml-syntax`, `duplicate-key`, `invalid-value` for a non-string key).
- Scalar values follow the YAML 1.2 core schema, as the engine does: `yes`, `on`, `2024-01-01` are
  strings; `true`/`false`, `null`/`~`/empty, ints (decimal, `0o`, `0x`) and floats resolve.
- Anchors, aliases and `<<` merge keys are refused (as the engine does) and never expanded: an
  alias is reported and its target is not visited again, so a billion-laughs file costs one walk.
- Mappings keep their entries in authored order; a duplicate key is reported and only its first
  entry is kept. Spans are `[start, end)` offsets into the document text (code points).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from analysis.diagnostics import Diagnostic, Severity
from analysis.source import SourceText

MAX_SOURCE_CHARS = 2 * 1024 * 1024

YAML_SYNTAX = "yaml-syntax"
DUPLICATE_KEY = "duplicate-key"
INVALID_VALUE = "invalid-value"

ScalarValue = str | int | float | bool | None

_CORE_TAG = "tag:yaml.org,2002:"
_ALLOWED_TAGS = frozenset(
    _CORE_TAG + name for name in ("str", "int", "float", "bool", "null", "seq", "map")
)
_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_SPECIAL_FLOAT = {
    **{
        sign + inf: float(sign + "inf")
        for sign in ("", "+", "-")
        for inf in (".inf", ".Inf", ".INF")
    },
    ".nan": float("nan"), ".NaN": float("nan"), ".NAN": float("nan"),
}
# Scalars that can only be strings in the core schema start with none of these characters.
_MAYBE_NOT_STRING = frozenset("0123456789+-.~nNtTfF")
_PROPERTIES = re.compile(r"(?:[&!][^ \t\r\n]*[ \t\r\n]*)+")


def resolve_plain(text: str) -> ScalarValue:
    """The YAML 1.2 core-schema value of a plain (unquoted) scalar."""
    if text and text[0] not in _MAYBE_NOT_STRING:
        return text
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        return int(text)
    if text.startswith(("0o", "0x")) and len(text) > 2:
        try:
            return int(text[2:], 8 if text[1] == "o" else 16)
        except ValueError:
            return text
    if _FLOAT.match(text):
        return float(text)
    return _SPECIAL_FLOAT.get(text, text)


@dataclass(eq=False)
class YNode:
    start: int
    end: int

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)


@dataclass(eq=False)
class YScalar(YNode):
    """A scalar. `text` is the decoded string; `value` its core-schema value."""

    text: str
    value: ScalarValue
    # None (plain), "'", '"', "|" or ">" — the five YAML scalar styles.
    style: str | None
    # Where the scalar's own text starts (after any `!tag`/`&anchor` properties).
    content_start: int


@dataclass(eq=False)
class YAlias(YNode):
    """An alias (already reported, never expanded); its span is the anchored node's."""


@dataclass(eq=False)
class YEntry:
    key: YScalar
    value: YNode


@dataclass(eq=False)
class YMapping(YNode):
    entries: list[YEntry] = field(default_factory=list)
    _index: dict[str, YEntry] = field(default_factory=dict, repr=False)

    def get(self, key: str) -> YEntry | None:
        return self._index.get(key)

    def keys(self) -> list[str]:
        return [entry.key.text for entry in self.entries]


@dataclass(eq=False)
class YSequence(YNode):
    items: list[YNode] = field(default_factory=list)


@dataclass
class YamlDocument:
    source: SourceText
    root: YNode | None
    problems: list[Diagnostic]
    # Every scalar's span, in document order, for "is this offset inside a scalar?" questions.
    scalar_spans: list[tuple[int, int]]


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


class _Reader:
    def __init__(self, source: SourceText) -> None:
        self.source = source
        self.text = source.text
        # libyaml does not count a leading BOM in its mark indices.
        self.base = 1 if self.text.startswith("\ufeff") else 0
        self.problems: list[Diagnostic] = []
        self.scalar_spans: list[tuple[int, int]] = []
        self.has_alias = False

    def problem(self, rule: str, start: int, end: int, message: str, **data: Any) -> None:
        self.problems.append(
            Diagnostic(self.source.range(start, end), Severity.ERROR, rule, message, data or None)
        )

    def properties(self, node: yaml.Node, start: int) -> int:
        """Report anchors and custom tags at `start`; return where the node's content starts."""
        if start >= len(self.text) or self.text[start] not in "&!":
            return start
        match = _PROPERTIES.match(self.text, start)
        content = match.end() if match else start
        for token in (match.group(0).split() if match else ()):
            if token.startswith("&"):
                self.problem(
                    YAML_SYNTAX, start, start + len(token),
                    f"anchor '{token}' is not allowed in a workflow file: Relavium refuses "
                    "anchors and aliases; write the value out in full",
                )
            elif node.tag not in _ALLOWED_TAGS:
                self.problem(
                    YAML_SYNTAX, start, start + len(token),
                    f"tag '{token}' is not supported: remove it (only plain YAML values are read)",
                )
        return content

    def read(self, root: yaml.Node) -> YNode:
        seen: set[int] = set()
        holder: list[YNode] = []
        # (yaml node, container to fill, key) — iterative so any nesting depth is safe.
        stack: list[tuple[yaml.Node, Any, YScalar | None]] = [(root, holder, None)]
        while stack:
            node, parent, key = stack.pop()
            built = self.build(node, seen)
            if isinstance(parent, list):
                parent.append(built)
            elif isinstance(parent, YSequence):
                parent.items.append(built)
            else:
                assert isinstance(parent, YMapping) and key is not None
                entry = YEntry(key, built)
                if key.text in parent._index:
                    first = parent._index[key.text].key
                    line = self.source.position(first.start).line + 1
                    self.problem(
                        DUPLICATE_KEY, key.start, key.end,
                        f"duplicate key '{key.text}' (first defined on line {line}): "
                        "remove or rename one of them",
                        first={"start": first.start, "end": first.end},
                    )
                else:
                    parent._index[key.text] = entry
                    parent.entries.append(entry)
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(built, YMapping):
                pairs = self.mapping_pairs(node.value)
                stack.extend((value, built, k) for k, value in reversed(pairs))
            elif isinstance(built, YSequence):
                stack.extend((item, built, None) for item in reversed(node.value))
        return holder[0]

    def report_aliases(self) -> None:
        for event in yaml.parse(self.text, Loader=yaml.CSafeLoader):
            if isinstance(event, yaml.AliasEvent):
                assert event.start_mark is not None and event.end_mark is not None
                start = event.start_mark.index + self.base
                self.problem(
                    YAML_SYNTAX, start, event.end_mark.index + self.base,
                    f"alias '*{event.anchor}' is not allowed in a workflow file: Relavium refuses "
                    "anchors and aliases; write the value out in full",
                )

    def mapping_pairs(self, pairs: list[tuple[yaml.Node, yaml.Node]]) -> list[tuple[YScalar, Any]]:
        kept = []
        for key_node, value_node in pairs:
            key = self.build(key_node, set())
            if not isinstance(key, YScalar) or (
                key.style is None and not isinstance(key.value, str)
            ):
                self.problem(
                    INVALID_VALUE, key.start, key.end,
                    "mapping keys must be strings: quote the key or remove the entry",
                )
                continue
            if key.style is None and key.text == "<<":
                self.problem(
                    YAML_SYNTAX, key.start, key.end,
                    "merge key '<<' is not allowed in a workflow file: Relavium refuses merge "
                    "keys; write the entries out in full",
                )
                continue
            kept.append((key, value_node))
        return kept

    def build(self, node: yaml.Node, seen: set[int]) -> YNode:
        start = node.start_mark.index + self.base
        end = node.end_mark.index + self.base
        if id(node) in seen:
            # compose() hands back the anchored node itself; report_aliases() finds the `*name`.
            self.has_alias = True
            return YAlias(start, end)
        content = self.properties(node, start)
        if isinstance(node, yaml.ScalarNode):
            self.scalar_spans.append((start, end))
            text: str = node.value
            style = node.style or None
            value: ScalarValue = text
            if style is None and (content == start or node.tag != _CORE_TAG + "str"):
                value = resolve_plain(text)
            return YScalar(start, end, text, value, style, content)
        if isinstance(node, yaml.MappingNode):
            return YMapping(start, end)
        return YSequence(start, end)


def read_yaml(source: SourceText) -> YamlDocument:
    """Compose `source` and convert it; never raises on any text."""
    text = source.text
    if len(text) > MAX_SOURCE_CHARS:
        problem = Diagnostic(
            source.range(0, 0), Severity.ERROR, YAML_SYNTAX,
            f"the file is {len(text)} characters long; Relavium refuses workflow sources over "
            "2 MiB: split it or move large text into files",
        )
        return YamlDocument(source, None, [problem], [])
    reader = _Reader(source)
    try:
        root = yaml.compose(text, Loader=yaml.CSafeLoader)
    except yaml.MarkedYAMLError as error:
        return YamlDocument(source, None, [_syntax_problem(reader, error)], [])
    except (yaml.YAMLError, ValueError, RecursionError) as error:
        problem = Diagnostic(
            source.range(0, 0), Severity.ERROR, YAML_SYNTAX,
            f"the file is not valid YAML: {error}",
        )
        return YamlDocument(source, None, [problem], [])
    if root is None:
        return YamlDocument(source, None, [], [])
    tree = reader.read(root)
    if reader.has_alias:
        reader.report_aliases()
    return YamlDocument(source, tree, reader.problems, reader.scalar_spans)


def _syntax_problem(reader: _Reader, error: yaml.MarkedYAMLError) -> Diagnostic:
    mark = error.problem_mark or error.context_mark
    offset = mark.index + reader.base if mark is not None else 0
    offset = min(offset, len(reader.text))
    what = error.problem or "invalid YAML"
    context = f" {error.context}" if error.context else ""
    message = f"YAML syntax error: {what}{context}; fix the YAML at this position"
    return Diagnostic(reader.source.range(offset, offset + 1 if offset < len(reader.text) else
                                          offset),
                      Severity.ERROR, YAML_SYNTAX, message)
