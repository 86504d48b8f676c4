"""A YAML text composed by libyaml (the C parser) and converted into the tree of
`analysis.document.yaml_nodes`, with the reader-level problems as `Diagnostic`s: `yaml-syntax`
(with a hint for the mistakes workflow authors make most), `duplicate-key`, `invalid-value` for
a key that is no string.

PyYAML's 1.1 resolver never runs and no Python objects are constructed: values resolve by the
engine's decode profile (`analysis.document.yaml_profile`). A scalar key is its text (`1:`,
`true:`, `~:` are the keys '1', 'true', '~'); a tagged or collection key is refused. `<<` is an
ordinary key. Anchors are allowed; aliases are refused (as the engine does) and never expanded:
an alias is reported and its target is not visited again, so a billion-laughs file costs one
walk. A duplicate key is reported and only its first entry is kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import repeat
from typing import Any

import yaml
from yaml._yaml import CParser

from analysis.diagnostics import Diagnostic, Related, Severity
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import (
    ScalarValue,
    YAlias,
    YamlDocument,
    YEntry,
    YMapping,
    YNode,
    YScalar,
    YSequence,
)
from analysis.document.yaml_profile import (
    COLLECTION_TAGS,
    CORE_SCALAR_TAGS,
    CORE_TAG,
    DUPLICATE_KEY,
    INVALID_VALUE,
    STR_TAG,
    YAML_SYNTAX,
    for_libyaml,
    resolve_plain,
    resolve_tagged,
    tag_applies,
)
from analysis.naming import article

_PROPERTIES = re.compile(r"(?:[&!][^ \t\r\n]*[ \t\r\n]*)+")
_TAG_TOKEN = re.compile(r"(?<![^ \t\r\n])![^ \t\r\n]*")

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
        # Stand-in characters → the YAML 1.2 content characters they stand for (see `for_libyaml`).
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
        if node.tag in CORE_SCALAR_TAGS:
            kind = node.tag.removeprefix(CORE_TAG)
            what = (f"tag '{written}' does not fit the text {value!r} (it is no {kind} in YAML "
                    f"1.2): the engine reads the string {value!r}; remove the tag or write "
                    f"{article(kind)} {kind}")
        elif isinstance(value, str):
            what = (f"tag '{written}' has no effect in a Relavium file: the engine reads the "
                    f"plain text {value!r}; remove the tag")
        else:
            what = (f"tag '{written}' has no effect in a Relavium file: the engine reads the "
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
                    f"alias '*{event.anchor}' is not allowed in a Relavium file: Relavium refuses "
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
        if (tag is not None and node.tag != STR_TAG) or tag == "!":
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
                if not tag_applies(node.tag, value):
                    self.ignored_tag(tag_start, tag, node, value)
            elif style is None:
                value = resolve_plain(text)
            return YScalar(start, end, text, value, style, content)
        if tag is not None and node.tag not in COLLECTION_TAGS:
            self.ignored_tag(tag_start, tag, node, None)
        if node.__class__ is yaml.MappingNode:
            return YMapping(start, end, [], {})
        return YSequence(start, end, [])


_TAG_OF_KIND = {
    yaml.ScalarNode: STR_TAG, yaml.SequenceNode: CORE_TAG + "seq",
    yaml.MappingNode: CORE_TAG + "map",
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


def read_text(source: SourceText, checkpoint: Callable[[], None] | None = None) -> YamlDocument:
    """The whole of `source` read; `checkpoint` is called as the conversion goes (see
    `_Reader.read`)."""
    reader = _Reader(source)
    try:
        reader.for_libyaml, reader.restore = for_libyaml(source.text)
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


def read_lines(source: SourceText, lines: str, line_start: int) -> YNode | None:
    """The nodes of `lines` (the document's text from `line_start` on, with no anchor) composed
    alone, at their offsets in the document; None when they do not compose or have a
    problem."""
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
    return None if reader.problems else tree


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
