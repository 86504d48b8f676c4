"""Read YAML into a small node tree that keeps every node's span (document offsets).

Contract:
- `read_yaml(source)` composes the text with libyaml (the C parser), never constructs
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

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import yaml
from yaml._yaml import CParser

from analysis.diagnostics import Diagnostic, Related, Severity
from analysis.source import SourceText

MAX_SOURCE_BYTES = 2 * 1024 * 1024  # UTF-8

YAML_SYNTAX = "yaml-syntax"
DUPLICATE_KEY = "duplicate-key"
INVALID_VALUE = "invalid-value"

ScalarValue = str | int | float | bool | None

_CORE_TAG = "tag:yaml.org,2002:"
_STR_TAG = _CORE_TAG + "str"
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


def _js_integer(value: int) -> int | float:
    """The integer as a JavaScript number: beyond 2**53 a double (infinite past the range)."""
    if abs(value) <= 2**53:
        return value
    try:
        return float(value)
    except OverflowError:
        return math.inf


def resolve_plain(text: str) -> ScalarValue:
    """The YAML 1.2 core-schema value of a plain (unquoted) scalar."""
    if text and text[0] not in _MAYBE_NOT_STRING:
        return text
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        # Up to 15 digits is exact either way; longer goes through float, as JavaScript reads
        # it (and a >4,300-digit int() would raise).
        return int(text) if len(text) <= 15 else float(text)
    if text.startswith(("0o", "0x")) and len(text) > 2:
        try:
            return _js_integer(int(text[2:], 8 if text[1] == "o" else 16))
        except ValueError:
            return text
    if _FLOAT.match(text):
        return float(text)
    return _SPECIAL_FLOAT.get(text, text)


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


class _Reader:
    def __init__(self, source: SourceText) -> None:
        self.source = source
        self.text = source.text
        # libyaml does not count a leading BOM in its mark indices.
        self.base = 1 if self.text.startswith("\ufeff") else 0
        self.length = len(self.text)
        self.problems: list[Diagnostic] = []
        self.has_alias = False
        # Aliases need an anchor, and an anchor needs a `&`: without one, skip identity tracking.
        self.track_aliases = "&" in self.text
        self.seen: set[int] = set()

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
                    f"tag '{token}' is not supported: remove it (only plain YAML values are "
                    "read); if the '!' is JavaScript's not, write the value as a '|' block "
                    "scalar or quote it",
                )
        return content

    def read(self, root: yaml.Node) -> YNode:
        """Convert in document order (pre-order, iterative: any nesting depth is safe), so the
        anchored node is always met before its aliases."""
        tree = self.build(root)
        if not isinstance(tree, YMapping | YSequence):
            return tree
        stack: list[tuple[YMapping | YSequence, Iterator[Any]]] = [(tree, iter(root.value))]
        build = self.build
        while stack:
            parent, children = stack[-1]
            if isinstance(parent, YSequence):
                items = parent.items
                for child in children:
                    built = build(child)
                    items.append(built)
                    if built.__class__ is YMapping or built.__class__ is YSequence:
                        stack.append((built, iter(child.value)))
                        break
                else:
                    stack.pop()
                continue
            for key_node, value_node in children:
                key = self.key(key_node)
                if key is None:
                    continue
                built = build(value_node)
                self.add_entry(parent, key, built)
                if built.__class__ is YMapping or built.__class__ is YSequence:
                    stack.append((built, iter(value_node.value)))
                    break
            else:
                stack.pop()
        return tree

    def add_entry(self, mapping: YMapping, key: YScalar, value: YNode) -> None:
        first = mapping._index.get(key.text)
        if first is None:
            entry = YEntry(key, value)
            mapping._index[key.text] = entry
            mapping.entries.append(entry)
            return
        line = self.source.position(first.key.start).line + 1
        self.problems.append(Diagnostic(
            self.source.range(key.start, key.end), Severity.ERROR, DUPLICATE_KEY,
            f"duplicate key '{key.text}' (first defined on line {line}): "
            "remove or rename one of them",
            {"key": key.text},
            (Related(self.source.range(first.key.start, first.key.end),
                     f"'{key.text}' is first defined here"),),
        ))

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

    def key(self, node: yaml.Node) -> YScalar | None:
        """The key as a scalar, or None (reported) for a non-string or `<<` merge key."""
        key = self.build(node)
        if not isinstance(key, YScalar) or (key.style is None and not isinstance(key.value, str)):
            self.problem(
                INVALID_VALUE, key.start, key.end,
                "mapping keys must be strings: quote the key or remove the entry",
            )
            return None
        if key.style is None and key.text == "<<":
            self.problem(
                YAML_SYNTAX, key.start, key.end,
                "merge key '<<' is not allowed in a workflow file: Relavium refuses merge "
                "keys; write the entries out in full",
            )
            return None
        return key

    def build(self, node: yaml.Node) -> YNode:
        base = self.base
        start = node.start_mark.index + base
        end = node.end_mark.index + base
        if self.track_aliases:
            if id(node) in self.seen:
                # compose() hands back the anchored node itself; report_aliases() finds `*name`.
                self.has_alias = True
                return YAlias(start, end)
            self.seen.add(id(node))
        content = start
        if start < self.length and self.text[start] in "&!":
            content = self.properties(node, start)
        if node.__class__ is yaml.ScalarNode:
            text: str = node.value
            style = node.style or None
            value: ScalarValue = text
            if style is None and (content == start or node.tag != _STR_TAG):
                value = resolve_plain(text)
            return YScalar(start, end, text, value, style, content)
        if node.__class__ is yaml.MappingNode:
            return YMapping(start, end, [], {})
        return YSequence(start, end, [])


_TAG_OF_KIND = {
    yaml.ScalarNode: _STR_TAG, yaml.SequenceNode: _CORE_TAG + "seq",
    yaml.MappingNode: _CORE_TAG + "map",
}


class _Composer(CParser):
    """libyaml's composer without PyYAML's YAML 1.1 resolver: an untagged node keeps its
    kind's default tag (values are resolved by the 1.2 core schema in `_Reader.build`). The
    resolver's regex pass costs about a third of `yaml.compose(..., Loader=CSafeLoader)`."""

    def resolve(self, kind: type[yaml.Node], value: object, implicit: object) -> str:
        return _TAG_OF_KIND[kind]

    def descend_resolver(self, current_node: object, current_index: object) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


def _compose(text: str) -> yaml.Node | None:
    composer = _Composer(text)
    try:
        node: yaml.Node | None = composer.get_single_node()
        return node
    finally:
        composer.dispose()


def too_large(source: SourceText, size: str) -> Diagnostic:
    """The refusal of a source over the limit; `size` says how long it is ("…bytes")."""
    return Diagnostic(
        source.range(0, 0), Severity.ERROR, YAML_SYNTAX,
        f"the file is {size} long; Relavium refuses workflow sources over 2 MiB: "
        "split it or move large text into files",
    )


def read_yaml(source: SourceText) -> YamlDocument:
    """Compose `source` and convert it; never raises on any text."""
    text = source.text
    # A character is at least one UTF-8 byte: encode only when the length alone cannot tell.
    size = len(text) if len(text) > MAX_SOURCE_BYTES or text.isascii() else len(
        text.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE_BYTES:
        return YamlDocument(source, None, [too_large(source, f"{size} bytes")])
    reader = _Reader(source)
    try:
        root = _compose(text)
    except yaml.MarkedYAMLError as error:
        return YamlDocument(source, None, [_syntax_problem(reader, error)])
    except (yaml.YAMLError, ValueError, RecursionError) as error:
        problem = Diagnostic(
            source.range(0, 0), Severity.ERROR, YAML_SYNTAX,
            f"the file is not valid YAML: {error}",
        )
        return YamlDocument(source, None, [problem])
    if root is None:
        return YamlDocument(source, None, [])
    tree = reader.read(root)
    if reader.has_alias:
        reader.report_aliases()
    return YamlDocument(source, tree, reader.problems)


# libyaml's wording → what the author should do, for the mistakes workflow authors make most.
_SYNTAX_HINTS = (
    ("mapping values are not allowed",
     "a ': ' inside an unquoted value starts a mapping: quote the whole value, or write it as a "
     "'|' block scalar (JavaScript's `a ? b : c` needs this)"),
    ("tab", "YAML indents with spaces only: replace the tab with spaces"),
)


# `key: value` (or `- key: value`) whose value starts with a YAML indicator character.
_INDICATOR_VALUE = re.compile(r"[ \t]*(?:-[ \t]+)?[^\s:#][^:#]*:[ \t]+(?P<value>[][{}\"'`@%*&!|>])")


def _indicator_hint(text: str, offset: int) -> str | None:
    """For an error on a line whose value starts with a YAML indicator (`"a" + b`, `[1].map`,
    a template literal, `*x`): say that YAML reads it as syntax and how to keep it text."""
    line_start = text.rfind("\n", 0, offset) + 1
    match = _INDICATOR_VALUE.match(text, line_start)
    if match is None or offset < match.start("value"):
        return None
    if not _closed_before(text, match.start("value"), offset):
        return None  # an error inside a flow list or quoted string is not this trap
    return (f"this value starts with {match.group('value')!r}, which YAML reads as syntax, not "
            "text: write it as a '|' block scalar, or quote the whole value")


def _closed_before(text: str, start: int, offset: int) -> bool:
    """Whether the flow collection or quoted scalar opening at `start` closes before `offset`
    (so the text after it is what YAML could not read); other indicators count as closed."""
    opener = text[start]
    if opener not in "[{\"'":
        return True
    depth = 0
    index = start + (opener in "\"'")
    while index < offset:
        ch = text[index]
        if opener in "\"'":
            # Skip an escape: `\x` in double quotes, `''` in single quotes.
            escape = "\\" if opener == '"' else "''"
            if text.startswith(escape, index):
                index += 1
            elif ch == opener:
                return True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return True
        index += 1
    return False


def _syntax_problem(reader: _Reader, error: yaml.MarkedYAMLError) -> Diagnostic:
    mark = error.problem_mark or error.context_mark
    what = error.problem or "invalid YAML"
    context = f" {error.context}" if error.context else ""
    hint = "fix the YAML at this position"
    at_end = mark is not None and mark.index + reader.base >= len(reader.text.rstrip())
    if (at_end or "end of stream" in what) and error.context_mark is not None and error.context:
        # An unclosed quote or bracket: where it opened is where to look, not the file's end.
        mark = error.context_mark
        opened = error.context.split(" ", 3)[-1]  # "while scanning a quoted scalar"
        hint = f"the {opened} that starts here is never closed: close it"
    offset = mark.index + reader.base if mark is not None else 0
    offset = min(offset, len(reader.text))
    at_tab = reader.text.startswith("\t", offset)
    for needle, advice in _SYNTAX_HINTS:
        if needle in what or (needle == "tab" and at_tab):
            hint = advice
            break
    else:
        if mark is not error.context_mark:
            hint = _indicator_hint(reader.text, offset) or hint
    message = f"YAML syntax error: {what}{context}; {hint}"
    return Diagnostic(reader.source.range(offset, offset + 1 if offset < len(reader.text) else
                                          offset),
                      Severity.ERROR, YAML_SYNTAX, message)
