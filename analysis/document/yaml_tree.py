"""Read YAML into a small node tree that keeps every node's span (document offsets).

Contract:
- `read_yaml(source)` composes the text with libyaml (the C parser), never constructs
  Python objects with PyYAML's 1.1 resolver, and returns a `YamlDocument`: the root node (None when
  the text has a syntax error or is empty) and the reader-level problems as `Diagnostic`s
  (`yaml-syntax`, `duplicate-key`, `invalid-value` for a non-string key).
- Values follow the engine's decode profile (packages/core/src/yaml-decode.ts: the `yaml` npm
  package, YAML 1.2 core schema, unknown tags not resolved, string keys, no merge keys, no
  aliases): `yes`, `on`, `2024-01-01` are strings; `true`/`false`, `null`/`~`/empty, ints
  (decimal, `0o`, `0x`) and floats resolve. An explicit core tag resolves when its own pattern
  matches the text, quoted or not (`!!int '1000'` is 1000; `!!float 5` stays the string '5');
  any other tag (`!env`, `!!binary`, `!!timestamp`) leaves the plain text and is warned about.
  A scalar key is its text (`1:`, `true:`, `~:` are the keys '1', 'true', '~'); a tagged or
  collection key is refused. `<<` is an ordinary key. Unknown directives (`%FOO`) are ignored.
- Anchors are allowed; aliases are refused (as the engine does) and never expanded: an alias is
  reported and its target is not visited again, so a billion-laughs file costs one walk.
- Mappings keep their entries in authored order; a duplicate key is reported and only its first
  entry is kept. Spans are `[start, end)` offsets into the document text (code points).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from typing import Any

import yaml
from yaml._yaml import CParser

from analysis.diagnostics import Diagnostic, Related, Severity
from analysis.document.source import SourceText, changed_span
from analysis.naming import article

MAX_SOURCE_BYTES = 2 * 1024 * 1024  # UTF-8

YAML_SYNTAX = "yaml-syntax"
DUPLICATE_KEY = "duplicate-key"
INVALID_VALUE = "invalid-value"

ScalarValue = str | int | float | bool | None

_CORE_TAG = "tag:yaml.org,2002:"
_STR_TAG = _CORE_TAG + "str"
# Collection tags the engine's decoder takes as they are, without a word.
_COLLECTION_TAGS = frozenset(_CORE_TAG + name for name in ("seq", "map", "set", "omap", "pairs"))
_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+\Z")
_OCT = re.compile(r"0o[0-7]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
# `!!float` applies only where a float pattern of the core schema matches: a '.' or an exponent.
_TAGGED_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)"
                           r"[eE][-+]?[0-9]+)\Z")
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
_TAG_TOKEN = re.compile(r"(?<![^ \t\r\n])![^ \t\r\n]*")


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
    number = _core_number(text)
    if number is not None:
        return number
    if _FLOAT.match(text):
        return float(text)
    return _SPECIAL_FLOAT.get(text, text)


def _core_number(text: str) -> int | float | None:
    """The value of an int (decimal, `0o`, `0x`) of the core schema, or None."""
    if _INT.match(text):
        # Up to 15 digits is exact either way; longer goes through float, as JavaScript reads
        # it (and a >4,300-digit int() would raise).
        return int(text) if len(text) <= 15 else float(text)
    if _OCT.match(text) or _HEX.match(text):
        return _js_integer(int(text[2:], 8 if text[1] == "o" else 16))
    return None


def resolve_tagged(tag: str, text: str) -> ScalarValue:
    """The value of a scalar with an explicit tag, as the engine's decoder reads it: a core
    scalar tag applies when its pattern matches the (decoded) text, else the text stays a
    string; `!!str`, `!` and every other tag give the text."""
    name = tag.removeprefix(_CORE_TAG) if tag.startswith(_CORE_TAG) else None
    if name == "null" and text in _NULL:
        return None
    if name == "bool" and text in _BOOL:
        return _BOOL[text]
    if name == "int":
        number = _core_number(text)
        return text if number is None else number
    if name == "float" and (_TAGGED_FLOAT.match(text) or text in _SPECIAL_FLOAT):
        return _SPECIAL_FLOAT.get(text) or float(text)
    return text


def _applies(tag: str, value: ScalarValue) -> bool:
    """Whether a scalar's tag did what it says (else it is warned about: the engine ignores it)."""
    if tag == _STR_TAG:
        return True
    return tag in _CORE_SCALAR_TAGS and not isinstance(value, str)


_CORE_SCALAR_TAGS = frozenset(_CORE_TAG + name for name in ("int", "float", "bool", "null"))


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


# The conversion checks whether to stop (`_Reader.read`) before each collection this deep or
# shallower: the root, `workflow`, `nodes`, one node. It is most of an analysis (0.3 s and more
# at 5,000 nodes, over half of it after libyaml), so a superseded analysis stops in the middle
# of it, not only after it.
_CHECKED_DEPTH = 4


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
        # Stand-in characters → the YAML 1.2 content characters they stand for (see _for_libyaml).
        self.restore: dict[int, int] | None = None
        # the text as libyaml was given it (the same offsets): aliases are found in it too
        self.for_libyaml = self.text

    def problem(self, rule: str, start: int, end: int, message: str, **data: Any) -> None:
        self.problems.append(
            Diagnostic(self.source.range(start, end), Severity.ERROR, rule, message, data or None)
        )

    def properties(self, start: int) -> tuple[int, str | None, int]:
        """Where the node's content starts after its `&anchor`/`!tag` properties at `start`,
        the tag as written (None when untagged) and where it starts."""
        match = _PROPERTIES.match(self.text, start)
        if match is None:
            return start, None, start
        tag = _TAG_TOKEN.search(self.text, start, match.end())
        if tag is None:
            return match.end(), None, start
        return match.end(), tag.group(0), tag.start()

    def ignored_tag(self, start: int, written: str, node: yaml.Node, value: object) -> None:
        if node.tag in _CORE_SCALAR_TAGS:
            kind = node.tag.removeprefix(_CORE_TAG)
            what = (f"tag '{written}' does not fit the text {value!r} (it is no {kind} in YAML "
                    f"1.2): the engine reads the string {value!r}; remove the tag or write "
                    f"{article(kind)} {kind}")
        elif isinstance(value, str):
            what = (f"tag '{written}' has no effect in a workflow file: the engine reads the "
                    f"plain text {value!r}; remove the tag")
        else:
            what = (f"tag '{written}' has no effect in a workflow file: the engine reads the "
                    "value as it is written; remove the tag")
        # `expression: !inputs.flag` is JavaScript's not read as a tag, and an empty value.
        looks_like_code = value == "" or any(ch in written for ch in ".([")
        hint = ("; if the '!' is JavaScript's not, write the value as a '|' block scalar or "
                "quote it" if isinstance(node, yaml.ScalarNode) and looks_like_code else "")
        self.problems.append(Diagnostic(
            self.source.range(start, start + len(written)), Severity.WARNING, YAML_SYNTAX,
            what + hint,
        ))

    def read(self, root: yaml.Node, checkpoint: Callable[[], None] | None = None) -> YNode:
        """Convert in document order (pre-order, iterative: any nesting depth is safe), so the
        anchored node is always met before its aliases. `checkpoint` is called before each
        collection down to a node or an edge (`_CHECKED_DEPTH`) is converted."""
        tree = self.build(root)
        if not isinstance(tree, YMapping | YSequence):
            return tree
        stack = [(tree, self.children(root))]
        # The common node (untagged, unanchored, no alias to track, no stand-in characters) is
        # built here, inline: one method call per node was a third of the conversion.
        plain = not self.track_aliases and self.restore is None
        text, base, length = self.text, self.base, self.length
        scalar_node, mapping_node = yaml.ScalarNode, yaml.MappingNode
        while stack:
            parent, children = stack[-1]
            for key_node, node in children:
                key = None
                if key_node is not None:
                    start = key_node.start_mark.index + base
                    if (not plain or key_node.__class__ is not scalar_node
                            or (start < length and text[start] in "&!")):
                        key = self.key(key_node)
                        if key is None:
                            continue
                    else:
                        name = key_node.value
                        key = YScalar(start, key_node.end_mark.index + base, name, name,
                                      key_node.style or None, start)
                start = node.start_mark.index + base
                built: YNode
                if not plain or (start < length and text[start] in "&!"):
                    built = self.build(node)
                elif node.__class__ is scalar_node:
                    value = node.value
                    style = node.style or None
                    built = YScalar(start, node.end_mark.index + base, value,
                                    resolve_plain(value) if style is None else value,
                                    style, start)
                else:
                    built = (YMapping if node.__class__ is mapping_node else YSequence)(
                        start, node.end_mark.index + base)
                if key is None:
                    parent.items.append(built)  # type: ignore[union-attr]
                elif key.text in parent._index:  # type: ignore[union-attr]
                    self.add_entry(parent, key, built)  # type: ignore[arg-type]
                else:
                    parent._index[key.text] = entry = YEntry(key, built)  # type: ignore[union-attr]
                    parent.entries.append(entry)  # type: ignore[union-attr]
                if built.__class__ is YMapping or built.__class__ is YSequence:
                    stack.append((built, self.children(node)))
                    if checkpoint is not None and len(stack) <= _CHECKED_DEPTH:
                        checkpoint()
                    break
            else:
                stack.pop()
        return tree

    @staticmethod
    def children(node: yaml.Node) -> Iterator[tuple[yaml.Node | None, yaml.Node]]:
        """A collection's (key, value) pairs; a sequence's items come with no key."""
        if node.__class__ is yaml.MappingNode:
            return iter(node.value)
        return zip(repeat(None), node.value)

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
        for event in yaml.parse(self.for_libyaml, Loader=yaml.CSafeLoader):
            if isinstance(event, yaml.AliasEvent):
                assert event.start_mark is not None and event.end_mark is not None
                start = event.start_mark.index + self.base
                self.problem(
                    YAML_SYNTAX, start, event.end_mark.index + self.base,
                    f"alias '*{event.anchor}' is not allowed in a workflow file: Relavium refuses "
                    "aliases; write the value out in full",
                )

    def key(self, node: yaml.Node) -> YScalar | None:
        """The key as a string scalar (its text, whatever it would resolve to as a value), or
        None (reported) for a collection or tagged key, which the engine's decoder refuses."""
        key = self.build(node, as_key=True)
        if not isinstance(key, YScalar):
            self.problem(
                INVALID_VALUE, key.start, key.end,
                "mapping keys must be strings: write a plain key or remove the entry",
            )
            return None
        _, tag, _ = self.properties(key.start)
        if (tag is not None and node.tag != _STR_TAG) or tag == "!":
            self.problem(
                INVALID_VALUE, key.start, key.end,
                f"a mapping key must not be tagged ('{tag}'): the engine accepts only string "
                "keys; remove the tag",
            )
            return None
        return key

    def build(self, node: yaml.Node, as_key: bool = False) -> YNode:
        base = self.base
        start = node.start_mark.index + base
        end = node.end_mark.index + base
        if self.track_aliases:
            if id(node) in self.seen:
                # compose() hands back the anchored node itself; report_aliases() finds `*name`.
                self.has_alias = True
                return YAlias(start, end)
            self.seen.add(id(node))
        content, tag, tag_start = start, None, start
        if start < self.length and self.text[start] in "&!":
            content, tag, tag_start = self.properties(start)
        if node.__class__ is yaml.ScalarNode:
            text: str = node.value
            if self.restore is not None:
                text = text.translate(self.restore)
            style = node.style or None
            value: ScalarValue = text
            if as_key:
                pass  # the engine's decoder reads every key as its text
            elif tag is not None:
                value = resolve_tagged(node.tag, text)
                if not _applies(node.tag, value):
                    self.ignored_tag(tag_start, tag, node, value)
            elif style is None:
                value = resolve_plain(text)
            return YScalar(start, end, text, value, style, content)
        if tag is not None and node.tag not in _COLLECTION_TAGS:
            self.ignored_tag(tag_start, tag, node, None)
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


_PROLOG_LINE = re.compile(r"[^\n]*(?:\n|\Z)")
_YAML_VERSION = re.compile(r"[0-9]+\.[0-9]+\Z")


def _without_ignored_directives(text: str) -> str:
    """The text with the directives the engine's decoder passes over (an unknown `%FOO`, any
    `%YAML n.m`, once or twice) made comments of the same length, for libyaml, which refuses
    them. Only a prolog ended by `---` has directives; everything else is left to libyaml."""
    if "%" not in text[:1] and "\n%" not in text:
        return text
    lines: list[tuple[int, str]] = []
    for match in _PROLOG_LINE.finditer(text):
        line = match.group(0).rstrip("\r\n")
        if line.startswith("---") and line[3:4] in ("", " ", "\t", "\r"):
            break
        if line.startswith("%"):
            lines.append((match.start(), line))
        elif (line.strip() and not line.lstrip().startswith("#")) or match.end() == len(text):
            return text  # content before any `---`: not a prolog
    else:
        return text
    chars = list(text)
    for start, line in lines:
        words = line.split("#", 1)[0].split()
        if words[0] == "%TAG" or (words[0] == "%YAML" and (
                len(words) != 2 or not _YAML_VERSION.match(words[1]))):
            continue  # libyaml reads %TAG; a malformed %YAML is an error to both
        chars[start] = "#"
    return "".join(chars)


# YAML 1.1 line breaks that YAML 1.2 (the engine's decoder) reads as ordinary characters.
_OLD_BREAKS = "\x85\u2028\u2029"


def _for_libyaml(text: str) -> tuple[str, dict[int, int] | None]:
    """The text as libyaml should see it to read what the engine's YAML 1.2 decoder reads, and
    the map from stand-ins back to the characters they replace. Every change keeps offsets:
    ignored directives become comments; NEL, LS and PS (line breaks to libyaml, content to
    YAML 1.2) become private-use characters the text does not use; a final line break is added
    when missing (a block scalar at the very end keeps its clipped newline, as in YAML 1.2)."""
    text = _without_ignored_directives(text)
    restore = None
    if any(ch in text for ch in _OLD_BREAKS):
        stand_ins = (chr(code) for code in range(0xF0000, 0xFFFFE) if chr(code) not in text)
        restore = {ord(stand_in): ord(ch) for ch, stand_in in zip(_OLD_BREAKS, stand_ins,
                                                                   strict=False)}
        text = text.translate({ch: stand_in for stand_in, ch in restore.items()})
    if text and not text.endswith(("\n", "\r")):
        text += "\n"
    return text, restore


def too_large(source: SourceText, size: str) -> Diagnostic:
    """The refusal of a source over the limit; `size` says how long it is ("…bytes")."""
    return Diagnostic(
        source.range(0, 0), Severity.ERROR, YAML_SYNTAX,
        f"the file is {size} long; Relavium refuses workflow sources over 2 MiB: "
        "split it or move large text into files",
    )


def read_yaml(
    source: SourceText, previous: YamlDocument | None = None,
    checkpoint: Callable[[], None] | None = None, take_over: bool = False,
) -> YamlDocument:
    """Compose `source` and convert it; never raises on any text (only what `checkpoint`
    raises: it is called as the conversion goes, so an analysis can stop in the middle of it).
    With `previous` (the same document before an edit), only the block-sequence item or
    top-level entry the edit falls in is read again when that is provably what a full read gives
    (see `_reread`): the nodes before the edit are shared, those after it are copies `delta`
    characters further on. With `take_over` the caller gives `previous` up: the nodes after the
    edit are moved there in place and shared too (no copy, and the model built on them stays
    valid), and the result's `moved` says what moved, so that `moved.undo()` makes `previous`
    what it was (`analysis.analyze` does, when it stops)."""
    text = source.text
    # A character is at least one UTF-8 byte: encode only when the length alone cannot tell.
    size = len(text) if len(text) > MAX_SOURCE_BYTES or text.isascii() else len(
        text.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE_BYTES:
        return YamlDocument(source, None, [too_large(source, f"{size} bytes")])
    if previous is not None:
        document = _reread(source, previous, take_over)
        if document is not None:
            return document
    reader = _Reader(source)
    try:
        reader.for_libyaml, reader.restore = _for_libyaml(text)
        root = _compose(reader.for_libyaml)
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
    tree = reader.read(root, checkpoint)
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


# -- reading one edited list item again ---------------------------------------------------------
#
# A block-sequence item whose `-` starts its line at column k spans every following line up to
# the first one indented k or less that is neither blank nor a comment (its *boundary*); libyaml
# reads the item's lines the same way whatever encloses it, since inside them no column is k or
# less. So when an edit falls inside one item (after its `-`, before its boundary) and leaves
# the boundary where it was, composing that item's lines alone gives the nodes a full read
# gives, with two differences fixed here: offsets (the lines are read from where they start)
# and where a collection that runs to the boundary ends (libyaml ends it at the boundary's
# first token; alone, at the end of the lines). A top-level entry of a block mapping is read
# the same way, with k = 0 (its key at column 0; `_reread_top_entry`). Anything else — a syntax
# error, an anchor, a tag warning, a tab, a CR, a previous version with problems — reads the
# whole text.

_ITEM_PREFIX = re.compile(r"( *)- +\Z")


def _reread(source: SourceText, previous: YamlDocument, take_over: bool) -> YamlDocument | None:
    old, new = previous.source.text, source.text
    root = previous.root
    if (root is None or previous.problems or not new.endswith("\n") or "\r" in new
            or "\r" in old or new.startswith("\ufeff") or old.startswith("\ufeff")
            or _for_libyaml(new) != (new, None)):
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
    reader = _Reader(source)
    reader.base = line_start
    reader.track_aliases = False
    try:
        root = _compose(lines)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
    if root is None:
        return None
    tree = reader.read(root)
    if reader.problems:
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
        _move(nodes, delta)
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
        _move(carried, delta)
        moved += carried
        return entries

    def document(self, source: SourceText, root: YNode) -> YamlDocument:
        document = YamlDocument(source, root, [])
        if self.moved:
            document.moved = Moved(self.moved, self.delta)
        return document


@dataclass(eq=False, slots=True)
class Moved:
    """The subtrees of an earlier tree a `take_over` read moved `delta` characters on in
    place."""

    nodes: list[YNode]
    delta: int

    def undo(self) -> None:
        """Move them back: the earlier tree is again exactly what it was."""
        _move(self.nodes, -self.delta)


def _move(nodes: list[YNode], delta: int) -> None:
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
