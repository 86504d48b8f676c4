"""The words a schema is written in: generic specs, each checking one YAML node for the walk.

Contract: every spec carries `doc` (one line) and is one of
- `Text(pattern, pattern_help, enum, nonempty, blank_is_empty, empty_help, corrected)`,
  `Number(integer, minimum, maximum, exclusive_minimum, ceiling)`, `Boolean()`, `Free()`
  (anything; the engine types it unknown);
- `Seq(item, min_items, max_items, empty_help, reuse, reuse_items)` (an unchanged list's, run
  of items' or item's findings come from the previous version's walk, see `Walk.unit`);
  `MapOf(value)` (a mapping with free keys);
- `Obj(fields, required, refused, open, extra, label)`: a strict mapping; `fields` maps each key
  to its spec in authored order, `refused` keys get a dedicated explanation, `extra` holds the
  cross-field rules (`extra(walk, mapping, path)`), `label` shows an item's path with its name;
- a spec chosen by the mapping itself or by its neighbours: `Tagged(tag, variants, common)`, a
  union discriminated by the value of key `tag` (`variants[value]` is that form's `Obj`;
  `tagged()` builds one); `IfKey(key, present, absent)`, a mapping checked as `present` when it
  has `key`; `BySibling(key, choices, absent)`, a field's value whose spec the value of another
  key of the same mapping chooses.
Messages name the field by its path (`workflow.nodes[2] (route).retry.max`), the value, and
what is expected; an unknown key close to a known one gets "did you mean" and a fix.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, TypeVar

from analysis.document.yaml_nodes import YAlias, YMapping, YNode, YScalar, YSequence
from analysis.document.yaml_profile import INVALID_VALUE, resolve_plain
from analysis.schema.walk import MISSING_FIELD, UNKNOWN_KEY, FoundFix, Walk


def describe_node(node: YNode) -> str:
    """What a value is, for a message (`a list`, `the number 3`)."""
    if isinstance(node, YMapping):
        return "a mapping"
    if isinstance(node, YSequence):
        return "a list"
    assert isinstance(node, YScalar)
    value = node.value
    if value is None:
        return "empty (null)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {node.text}"
    return f"the string '{value}'"


def _unquote_hint(node: YNode) -> str:
    """How to fix a quoted number or boolean (`'300'`, `"true"`), which YAML reads as a string."""
    if not (isinstance(node, YScalar) and node.style in ("'", '"')):
        return ""
    if isinstance(resolve_plain(node.text), bool | int | float):
        return f"; remove the quotes: {node.text}"
    return ""


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _where(path: str) -> str:
    return path or "top level"


def tag_of(node: YNode, tag: str) -> object:
    """The scalar value of key `tag` in `node` (None when absent, null or not a scalar)."""
    entry = node.get(tag) if isinstance(node, YMapping) else None
    return getattr(entry.value, "value", None) if entry is not None else None


S = TypeVar("S", bound="Spec")


@dataclass
class Spec:
    doc: str = field(default="", kw_only=True)

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        raise NotImplementedError

    def described(self: S, doc: str) -> S:
        """This spec with its own one-line description (shared specs are reused per field)."""
        return replace(self, doc=doc)


@dataclass
class Free(Spec):
    """Anything (the engine types it unknown)."""

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        return None


@dataclass
class Text(Spec):
    pattern: re.Pattern[str] | None = None
    pattern_help: str = ""
    enum: tuple[str, ...] = ()
    nonempty: bool = False  # at least one character, as Zod's `.min(1)`
    blank_is_empty: bool = False  # whitespace alone counts as empty (code that must compile)
    empty_help: str = "write a value"
    # The spelling `pattern` accepts of a value it refuses (an id's kebab-case), offered with it.
    corrected: Callable[[str], str] | None = None

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if not isinstance(node, YScalar) or not isinstance(node.value, str):
            hint = f"one of {', '.join(self.enum)}" if self.enum else "a string"
            extra: dict[str, Any] = {}
            if isinstance(node, YScalar) and node.value is not None and not self.enum:
                extra["replacement"] = f"'{node.text}'"
                hint += f" (quote it: '{node.text}')"
            elif isinstance(node, YMapping | YSequence) and not self.enum:
                opener = walk.text[node.start:node.start + 1]
                if opener in ("{", "["):
                    # `transform: { a: 1 }` is a JavaScript object to its author, a mapping to YAML.
                    hint += (f" (YAML reads a value starting with '{opener}' as a "
                             f"{'mapping' if opener == '{' else 'list'}: write the text as a "
                             "'|' block scalar or quote it)")
            walk.report(INVALID_VALUE, node, f"{path} must be {hint}, not {describe_node(node)}",
                        **extra)
            return
        value = node.value
        if self.enum and value not in self.enum:
            closest = walk.suggestions(self.enum).closest(value)
            suggestion = f" (did you mean '{closest}'?)" if closest else ""
            walk.report(
                INVALID_VALUE, node,
                f"{path} is '{value}', which is not one of: {', '.join(self.enum)}{suggestion}",
                **({"replacement": closest} if closest else {}),
            )
        elif self.nonempty and not (value.strip() if self.blank_is_empty else value):
            walk.report(INVALID_VALUE, node, f"{path} must not be empty: {self.empty_help}")
        elif self.pattern is not None and not self.pattern.match(value):
            fix = self.corrected(value) if self.corrected is not None else ""
            walk.report(
                INVALID_VALUE, node,
                f"{path} '{value}' must be {self.pattern_help}"
                + (f", e.g. '{fix}'" if fix and fix != value else ""),
                **({"replacement": fix} if fix and fix != value else {}),
            )


@dataclass
class Number(Spec):
    integer: bool = False
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None
    # `maximum` is an engine admission ceiling (ADR-0086): say so, since nothing else would
    # tell a value that parses apart from one the engine runs.
    ceiling: bool = False

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        value = node.value if isinstance(node, YScalar) else None
        # JavaScript has one number type: the engine's `.int()` accepts `3e5` and `1000.0`.
        # Zod's number refuses NaN; its `.int()` refuses ±Infinity too.
        ok_type = isinstance(value, int) or (
            isinstance(value, float) and not math.isnan(value)
            and (value.is_integer() or not self.integer))
        if isinstance(value, bool) or not ok_type:
            kind = "an integer" if self.integer else "a number"
            walk.report(INVALID_VALUE, node,
                        f"{path} must be {kind}, not {describe_node(node)}{_unquote_hint(node)}")
            return
        assert isinstance(node, YScalar) and isinstance(value, int | float)
        if (self.minimum is not None and value < self.minimum) or (
            self.maximum is not None and value > self.maximum
        ) or (self.exclusive_minimum is not None and value <= self.exclusive_minimum):
            beyond = self.ceiling and self.maximum is not None and value > self.maximum
            walk.report(INVALID_VALUE, node, f"{path} must be {self.bounds()}, not {node.text}"
                        + (CEILING_HELP if beyond else ""))

    def bounds(self) -> str:
        if self.exclusive_minimum is not None:
            return f"greater than {self.exclusive_minimum:g}"
        if self.maximum is not None:
            return f"between {self.minimum:g} and {self.maximum:g}"
        return f"at least {self.minimum:g}"


@dataclass
class Boolean(Spec):
    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if not (isinstance(node, YScalar) and isinstance(node.value, bool)):
            walk.report(INVALID_VALUE, node,
                        f"{path} must be true or false, not {describe_node(node)}"
                        f"{_unquote_hint(node)}")


CEILING_HELP = "; the engine refuses the file past this limit (ADR-0086: never clamped)"

# Items per run: a keystroke in a list of n items looks up about RUN + n / RUN units.
RUN = 32


@dataclass
class Seq(Spec):
    item: Spec
    min_items: int = 0
    max_items: int | None = None  # an engine admission ceiling (ADR-0086) when set
    empty_help: str = ""  # what to do instead of an empty list
    # The list and each run of `RUN` items are units (`Walk.unit`), and each item too with
    # `reuse_items`: the previous version's findings are taken over for those whose text is
    # unchanged. Worth its cost (a slice of the text, a lookup) for the workflow's lists of
    # mappings, and for an item when its check costs more than that (a node's, not an edge's).
    reuse: bool = False
    reuse_items: bool = False

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if self.reuse and isinstance(node, YMapping | YSequence):
            walk.unit(node.start, node.end, path, partial(self.check_list, walk, node, path))
        else:
            self.check_list(walk, node, path)

    def check_list(self, walk: Walk, node: YNode, path: str) -> None:
        if not isinstance(node, YSequence):
            walk.report(INVALID_VALUE, node, f"{path} must be a list, not {describe_node(node)}")
            return
        items = node.items
        if len(items) < self.min_items:
            walk.report(INVALID_VALUE, node, f"{path} must have at least {self.min_items} "
                        f"item{'s' if self.min_items > 1 else ''}{self.empty_help}")
        if self.max_items is not None and len(items) > self.max_items:
            # at the first entry past the ceiling: the ones from there on are what to remove
            walk.report(INVALID_VALUE, items[self.max_items],
                        f"{path} has {len(items)} entries, at most {self.max_items} allowed: "
                        f"remove {len(items) - self.max_items}{CEILING_HELP}")
        if not self.reuse or len(items) <= RUN:
            self.check_items(walk, items, 0, path)
            return
        for first in range(0, len(items), RUN):
            run = items[first:first + RUN]
            if isinstance(run[0], YAlias) or isinstance(run[-1], YAlias):
                self.check_items(walk, run, first, path)  # no span of its own
            else:
                walk.unit(run[0].start, run[-1].end, f"{path}[{first}:]",
                          partial(self.check_items, walk, run, first, path))

    def check_items(self, walk: Walk, items: list[YNode], first: int, path: str) -> None:
        spec = self.item
        for index, item in enumerate(items, first):
            if isinstance(item, YAlias):
                continue
            item_path = f"{path}[{index}]"
            if self.reuse_items and isinstance(item, YMapping | YSequence):
                walk.unit(item.start, item.end, item_path,
                          partial(spec.check, walk, item, item_path))
            else:
                spec.check(walk, item, item_path)


@dataclass
class MapOf(Spec):
    """A mapping whose keys are free and whose values all follow `value`."""

    value: Spec

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if not isinstance(node, YMapping):
            walk.report(INVALID_VALUE, node,
                        f"{path} must be a mapping, not {describe_node(node)}")
            return
        for entry in node.entries:
            if not isinstance(entry.value, YAlias):
                self.value.check(walk, entry.value, _join(path, entry.key.text))


@dataclass
class BySibling(Spec):
    """A field's value whose spec the value of key `key` in the same mapping chooses (an input's
    `validation` by the input's `type`): `choices[value]`, `choices[absent]` when that key is
    missing or null, and nothing to check for any other value. Only a field of an `Obj`, which
    resolves it (`chosen`) with the mapping at hand."""

    key: str
    choices: Mapping[str, Spec]
    absent: str

    def chosen(self, mapping: YNode) -> Spec | None:
        value = tag_of(mapping, self.key)
        if value is None:
            return self.choices[self.absent]
        return self.choices.get(value) if isinstance(value, str) else None

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        raise TypeError("a BySibling spec is checked as its Obj's field, with the mapping")


@dataclass
class Obj(Spec):
    fields: dict[str, Spec]
    required: tuple[str, ...] = ()
    # Keys refused with a dedicated explanation instead of the generic one.
    refused: dict[str, str] = field(default_factory=dict)
    open: bool = False  # unknown keys allowed
    extra: Callable[[Walk, YMapping, str], None] | None = None
    label: Callable[[YMapping, str], str] | None = None

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if not isinstance(node, YMapping):
            walk.report(INVALID_VALUE, node,
                        f"{path} must be a mapping, not {describe_node(node)}")
            return
        shown = self.label(node, path) if self.label else path
        self.check_keys(walk, node, shown)
        for entry in node.entries:
            spec = self.fields.get(entry.key.text)
            if isinstance(spec, BySibling):
                spec = spec.chosen(node)
            if spec is not None and not isinstance(entry.value, YAlias):
                spec.check(walk, entry.value, _join(shown, entry.key.text))
        if self.extra is not None:
            self.extra(walk, node, shown)

    def check_keys(self, walk: Walk, node: YMapping, path: str) -> None:
        for entry in node.entries:
            key = entry.key.text
            if key in self.fields:
                continue
            if key in self.refused:
                walk.report(UNKNOWN_KEY, entry.key, f"{_where(path)}: {self.refused[key]}",
                            key=key)
            elif not self.open:
                closest = walk.suggestions(tuple(self.fields)).closest(key)
                hint = (f"did you mean '{closest}'?" if closest
                        else f"allowed keys: {', '.join(self.fields)}" if self.fields
                        else "it takes no other keys")
                fixes = (FoundFix(f"Change `{key}` to `{closest}`",
                                  ((entry.key.start, entry.key.end, closest),), safe=False),
                         ) if closest else ()
                walk.report(UNKNOWN_KEY, entry.key, f"{_where(path)}: unknown key '{key}'; {hint}",
                            fixes, key=key, **({"replacement": closest} if closest else {}))
        missing = [name for name in self.required if node.get(name) is None]
        for name in missing:
            anchor: YNode = node.entries[0].key if node.entries else node
            walk.report(MISSING_FIELD, anchor, f"{_where(path)}: missing required field '{name}'",
                        field=name)


@dataclass
class Tagged(Spec):
    """A union discriminated by the value of key `tag`; an unknown tag checks `common` only
    (the other keys cannot be judged without knowing the form)."""

    tag: str
    variants: dict[str, Obj]
    common: dict[str, Spec] = field(default_factory=dict)
    tag_doc: str = ""
    label: Callable[[YMapping, str], str] | None = None

    def tag_spec(self) -> Text:
        return Text(enum=tuple(self.variants), doc=self.tag_doc)

    def variant(self, node: YNode) -> Obj | None:
        kind = tag_of(node, self.tag)
        return self.variants.get(kind) if isinstance(kind, str) else None

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        spec = self.variant(node)
        if spec is None:
            spec = Obj({**self.common, self.tag: self.tag_spec()},
                       (*[k for k in self.common if k == "id"], self.tag), open=True,
                       label=self.label)
        spec.check(walk, node, path)


def tagged(tag: str, tag_doc: str, variants: dict[str, tuple[dict[str, Spec], tuple[str, ...]]],
           common: dict[str, Spec] | None = None,
           refused: Callable[[str], dict[str, str]] | None = None,
           label: Callable[[YMapping, str], str] | None = None) -> Tagged:
    """A tagged union from (fields, required) per tag value; the tag and `common` are in every
    form, first."""
    base = common or {}
    tag_spec = Text(enum=tuple(variants), doc=tag_doc)
    forms = {
        name: Obj({**base, tag: tag_spec, **fields},
                  (*[k for k in base if k == "id"], tag, *required),
                  refused(name) if refused else {}, label=label)
        for name, (fields, required) in variants.items()
    }
    return Tagged(tag, forms, base, tag_doc, label)


@dataclass
class IfKey(Spec):
    """A mapping checked as `present` when it has key `key`, else as `absent` (an agent entry:
    a `{ $ref }` or an inline agent)."""

    key: str
    present: Obj
    absent: Obj

    def form(self, node: YNode) -> Obj:
        return self.present if isinstance(node, YMapping) and node.get(self.key) is not None \
            else self.absent

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        self.form(node).check(walk, node, path)


def labelled_by(key: str) -> Callable[[YMapping, str], str]:
    """Show a list item's path with its id or name: `workflow.nodes[2] (route)`."""
    def label(mapping: YMapping, path: str) -> str:
        entry = mapping.get(key)
        if entry and isinstance(entry.value, YScalar) and isinstance(entry.value.value, str):
            return f"{path} ({entry.value.value})"
        return path
    return label
