"""The workflow schema, as one declarative description, and its walk.

Contract: `validate(ctx, earlier)` returns `unknown-key`, `missing-field` and `invalid-value`
diagnostics for the whole file (the three rule modules each publish their own), the same with or
without `earlier` (the previous version's `SchemaMemo`, whose findings it takes over for the
lists and items whose text is unchanged), and this version's memo. Every message names the field
by its path (`workflow.nodes[2].branches[0].target_node`, with the node id when known), the value,
and what the engine expects. Fields whose checks belong to a dedicated rule are only type-checked
here: `expression_type` (reserved-/unknown-expression-type), `when` (condition-when-type),
`merge_fn` presence (missing-/unused-merge-fn), references to other nodes (unknown-node),
duplicate ids (duplicate-id).

The description is data, read by validation, completion (keys and enum values) and hover, and
exportable (e.g. to JSON Schema). Its root is `ROOT` (the document: `schema_version`, `workflow`);
`WORKFLOW` is the body under `workflow:`. Every spec carries `doc` (one line) and is one of:
- `Text(enum, pattern, nonempty)`, `Number(integer, minimum, maximum, exclusive_minimum)`,
  `Boolean()`, `Free()` (anything; the loader types it unknown); `RelativePath`, `Regex` and
  `Url` are `Text` with the engine's further checks (`save_to`, `pattern`, an MCP `url`);
- `Seq(item, min_items, reuse, reuse_items)` (an unchanged list's, run of items' or item's
  findings come from the previous version's walk, see `Walk.unit` and `SchemaMemo`);
  `MapOf(value)` (a mapping with free keys: `metadata`, `env`);
- `Obj(fields, required, refused, open)`: a strict mapping; `fields` maps each key to its spec
  in authored order, `refused` keys get a dedicated explanation, `extra` holds the cross-field
  rules the engine refines with (bound ordering, MCP transports);
- `Tagged(tag, variants, common)`: a union discriminated by the value of key `tag` (nodes by
  `type`, triggers, agent memory); `variants[value]` is that form's `Obj`;
- `AgentEntry`: an inline agent (`AGENT`) or a `{ $ref }` (`AGENT_REF`).
An input's `validation` (listed as `Free` in `INPUT`) is described per input type by
`VALIDATION_BY_TYPE`. Lookups: `child(spec, key, mapping)` is the spec of one key (resolving a
`Tagged` by the mapping's tag, an input's validation by its type), `form_of(spec, mapping)` the
strict form a mapping is checked against, `keys_of(spec, mapping)` the keys it accepts (what
completion offers), `spec_at(root, offset)` the key or value under an offset (hover).
Facts come from the engine's Zod schemas (HodeTech/Relavium packages/shared/src/workflow.ts,
node.ts, agent.ts, edge.ts, common.ts, constants.ts); where we knowingly differ, docs/rules.md
("Known differences from the engine") says so.
"""

from __future__ import annotations

import bisect
import difflib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from itertools import accumulate
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from analysis.diagnostics import Diagnostic, Severity
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YAlias, YMapping, YNode, YScalar, YSequence
from analysis.document.yaml_profile import resolve_plain
from analysis.document.yaml_read import read_yaml
from sandbox.syntax import check_syntax

if TYPE_CHECKING:
    from analysis.checks.context import RuleContext

UNKNOWN_KEY = "unknown-key"
MISSING_FIELD = "missing-field"
INVALID_VALUE = "invalid-value"

KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
NAME = re.compile(r"[A-Za-z0-9_-]+\Z")
NODE_TYPES = ("input", "agent", "human_gate", "condition", "transform", "parallel", "merge",
              "output")
INPUT_TYPES = ("string", "number", "boolean", "file_path", "code_diff", "secret")
PROVIDERS = ("anthropic", "openai", "gemini", "deepseek")
REASONING_EFFORTS = ("off", "low", "medium", "high", "max")
RETRYABLE_ERRORS = ("provider_rate_limit", "provider_unavailable", "tool_failed", "sandbox_error")
OUTPUT_MODALITIES = ("text", "image", "audio", "video")
INPUT_FORMATS = ("email", "uri", "uuid", "date-time")


def kebab_suggestion(text: str) -> str:
    """The kebab-case spelling of an id (`Fetch_Data` → `fetch-data`)."""
    words = re.findall(r"[a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text).lower())
    return "-".join(words)


# rule, severity, start, end (document offsets), message, data
Finding = tuple[str, Severity, int, int, str, "dict[str, Any] | None"]
# A unit's path (which decides its spec) and its text from the start of its first line (what
# precedes it on the line decides how it nests: an indentation indicator `|2` counts from there).
UnitKey = tuple[str, str]


class Remembered(NamedTuple):
    """A unit's findings, with offsets relative to its start, and every unit checked inside it
    (a list's runs and items) with its key, carried over with it when it is found again."""

    findings: tuple[Finding, ...]
    inner: tuple[tuple[UnitKey, Remembered], ...]


@dataclass(frozen=True)
class SchemaMemo:
    """What one version's walk found in each unit (a workflow list, each run of `RUN` of its
    items, each item), by the unit's text: the next version checks again only the units whose
    text changed, and looks up about `RUN` + items / `RUN` of them in a list of mappings.

    An `AnalysisResult` holds its own version's memo (taken over by a version whose YAML does
    not read), and a walk looks only at the previous one: it holds each unit's text (about
    three times the lists' text), findings and keys — memory bounded by the document it was
    walked for, freed with the result. `prologue`, the text before the document's root
    (directives such as `%TAG`, which decide what a tag in a unit means), must be the same for
    its entries to apply."""

    prologue: str
    units: dict[UnitKey, Remembered]


class Walk:
    def __init__(self, ctx: RuleContext, earlier: SchemaMemo | None = None) -> None:
        self.ctx = ctx
        self.out: list[Finding] = []
        root = ctx.document.root
        self.prologue = ctx.source.text[:root.start] if root is not None else ""
        self.earlier = earlier.units if earlier is not None and \
            earlier.prologue == self.prologue else {}
        self.units: dict[UnitKey, Remembered] = {}
        # the units checked in the one being checked, with their own inner units
        self._inner: list[tuple[UnitKey, Remembered]] = []

    def memo(self) -> SchemaMemo:
        return SchemaMemo(self.prologue, self.units)

    def report(self, rule: str, node: YNode, message: str, **data: Any) -> None:
        self.out.append((rule, Severity.ERROR, node.start, node.end, message, data or None))

    def warn(self, rule: str, node: YNode, message: str) -> None:
        """A value the engine loads but that can never work as meant."""
        self.out.append((rule, Severity.WARNING, node.start, node.end, message, None))

    def unit(self, start: int, end: int, path: str, check: Callable[[], None]) -> None:
        """`check()`, which walks the text from `start` to `end` under `path`, or what the
        previous version's walk found in the same text under the same path. A unit's check
        reads nothing outside it (aliases, whose span is their anchor's, are never checked), its
        text from its line's start decides its nodes, and its messages name the path."""
        text = self.ctx.source.text
        key = (path, text[text.rfind("\n", 0, start) + 1:end])
        known = self.earlier.get(key)
        if known is None:
            outer, outer_inner = self.out, self._inner
            self.out, self._inner = [], []
            check()
            known = Remembered(
                tuple((rule, severity, at - start, to - start, message, data)
                      for rule, severity, at, to, message, data in self.out),
                tuple(self._inner))
            self.out, self._inner = outer, outer_inner
        else:
            self.units.update(known.inner)  # this version's too: the next edit may change one
        self.units[key] = known
        self._inner.append((key, known))
        self._inner.extend(known.inner)
        if known.findings:
            self.out.extend((rule, severity, at + start, to + start, message,
                             dict(data) if data else None)
                            for rule, severity, at, to, message, data in known.findings)


def _describe(node: YNode) -> str:
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

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if not isinstance(node, YScalar) or not isinstance(node.value, str):
            hint = f"one of {', '.join(self.enum)}" if self.enum else "a string"
            extra: dict[str, Any] = {}
            if isinstance(node, YScalar) and node.value is not None and not self.enum:
                extra["replacement"] = f"'{node.text}'"
                hint += f" (quote it: '{node.text}')"
            elif isinstance(node, YMapping | YSequence) and not self.enum:
                opener = walk.ctx.source.text[node.start:node.start + 1]
                if opener in ("{", "["):
                    # `transform: { a: 1 }` is a JavaScript object to its author, a mapping to YAML.
                    hint += (f" (YAML reads a value starting with '{opener}' as a "
                             f"{'mapping' if opener == '{' else 'list'}: write the text as a "
                             "'|' block scalar or quote it)")
            walk.report(INVALID_VALUE, node, f"{path} must be {hint}, not {_describe(node)}",
                        **extra)
            return
        value = node.value
        if self.enum and value not in self.enum:
            closest = difflib.get_close_matches(value, self.enum, n=1)
            suggestion = f" (did you mean '{closest[0]}'?)" if closest else ""
            walk.report(
                INVALID_VALUE, node,
                f"{path} is '{value}', which is not one of: {', '.join(self.enum)}{suggestion}",
                **({"replacement": closest[0]} if closest else {}),
            )
        elif self.nonempty and not (value.strip() if self.blank_is_empty else value):
            walk.report(INVALID_VALUE, node, f"{path} must not be empty: {self.empty_help}")
        elif self.pattern is not None and not self.pattern.match(value):
            fix = kebab_suggestion(value) if self.pattern is KEBAB else ""
            walk.report(
                INVALID_VALUE, node,
                f"{path} '{value}' must be {self.pattern_help}"
                + (f", e.g. '{fix}'" if fix and fix != value else ""),
                **({"replacement": fix} if fix and fix != value else {}),
            )


_DRIVE = re.compile(r"[A-Za-z]:[\\/]")


@dataclass
class RelativePath(Text):
    """`save_to`: a non-empty path relative to the workspace, as the engine refuses any other."""

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        reported = len(walk.out)
        super().check(walk, node, path)
        if len(walk.out) > reported or not isinstance(node, YScalar):
            return
        value = str(node.value)
        if not value:
            problem = "must not be empty: write a relative path such as 'out/{{ run.id }}.json'"
        elif value.startswith(("/", "\\")) or _DRIVE.match(value):
            problem = (f"'{value}' is an absolute path; write it relative to the workspace, "
                       "e.g. 'out/{{ run.id }}.json'")
        elif ".." in re.split(r"[\\/]", value):
            problem = (f"'{value}' must not contain a '..' segment: write a path inside the "
                       "workspace")
        else:
            return
        walk.report(INVALID_VALUE, node, f"{path} {problem}")


PATTERN_MAX_SOURCE = 512  # the engine's ceiling on an authored pattern
_REGEX_LINE_BREAKS = {"\n": "\\n", "\r": "\\r", "\u2028": "\\u2028", "\u2029": "\\u2029"}


@lru_cache(maxsize=256)
def regex_problem(pattern: str) -> str | None:
    """Why `new RegExp(pattern)` (no flags, as the engine compiles it) throws, or None: the
    pattern is written as a regex literal and given to the engine's parser (QuickJS compiles
    regex literals while parsing)."""
    literal: list[str] = []
    index = 0
    while index < len(pattern):
        ch = pattern[index]
        if ch == "\\" and index + 1 == len(pattern):
            return "a '\\' at the end of the pattern escapes nothing"
        if ch == "\\":
            escaped = pattern[index + 1]
            literal.append(_REGEX_LINE_BREAKS.get(escaped, "\\" + escaped))
            index += 2
            continue
        literal.append("\\/" if ch == "/" else _REGEX_LINE_BREAKS.get(ch, ch))
        index += 1
    problem = check_syntax("/" + "".join(literal) + "/")
    return problem.message if problem is not None else None


@dataclass
class Regex(Text):
    """`validation.pattern`: a JavaScript regular expression the engine compiles at load."""

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        reported = len(walk.out)
        super().check(walk, node, path)
        if len(walk.out) > reported or not isinstance(node, YScalar):
            return
        pattern = str(node.value)
        if len(pattern) > PATTERN_MAX_SOURCE:
            walk.report(INVALID_VALUE, node, f"{path} is {len(pattern)} characters long; the "
                        f"engine accepts at most {PATTERN_MAX_SOURCE}: simplify it")
        elif (problem := regex_problem(pattern)) is not None:
            walk.report(INVALID_VALUE, node,
                        f"{path} is not a valid JavaScript regular expression ({problem}): fix "
                        "it, the engine compiles it with new RegExp(pattern) when it loads")


KEBAB_ID = Text(KEBAB, "kebab-case (lowercase letters and digits joined by single hyphens)")
NAME_ID = Text(NAME, "letters, digits, '_' or '-' only")
NONEMPTY = Text(nonempty=True)


@dataclass
class Number(Spec):
    integer: bool = False
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None

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
                        f"{path} must be {kind}, not {_describe(node)}{_unquote_hint(node)}")
            return
        assert isinstance(node, YScalar) and isinstance(value, int | float)
        if (self.minimum is not None and value < self.minimum) or (
            self.maximum is not None and value > self.maximum
        ) or (self.exclusive_minimum is not None and value <= self.exclusive_minimum):
            walk.report(INVALID_VALUE, node, f"{path} must be {self.bounds()}, not {node.text}")

    def bounds(self) -> str:
        if self.exclusive_minimum is not None:
            return f"greater than {self.exclusive_minimum:g}"
        if self.maximum is not None:
            return f"between {self.minimum:g} and {self.maximum:g}"
        return f"at least {self.minimum:g}"


POSITIVE_INT = Number(integer=True, minimum=1)
NON_NEGATIVE_INT = Number(integer=True, minimum=0)
TEMPERATURE = Number(minimum=0, maximum=2)


@dataclass
class Boolean(Spec):
    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if not (isinstance(node, YScalar) and isinstance(node.value, bool)):
            walk.report(INVALID_VALUE, node,
                        f"{path} must be true or false, not {_describe(node)}"
                        f"{_unquote_hint(node)}")


@dataclass
class Seq(Spec):
    item: Spec
    min_items: int = 0
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
            walk.report(INVALID_VALUE, node, f"{path} must be a list, not {_describe(node)}")
            return
        items = node.items
        if len(items) < self.min_items:
            walk.report(INVALID_VALUE, node, f"{path} must have at least {self.min_items} "
                        f"item{'s' if self.min_items > 1 else ''}{self.empty_help}")
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


# Items per run: a keystroke in a list of n items looks up about RUN + n / RUN units.
RUN = 32


@dataclass
class MapOf(Spec):
    """A mapping whose keys are free and whose values all follow `value`."""

    value: Spec

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if not isinstance(node, YMapping):
            walk.report(INVALID_VALUE, node, f"{path} must be a mapping, not {_describe(node)}")
            return
        for entry in node.entries:
            if not isinstance(entry.value, YAlias):
                self.value.check(walk, entry.value, _join(path, entry.key.text))


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
            walk.report(INVALID_VALUE, node, f"{path} must be a mapping, not {_describe(node)}")
            return
        shown = self.label(node, path) if self.label else path
        self.check_keys(walk, node, shown)
        for entry in node.entries:
            spec = self.fields.get(entry.key.text)
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
                closest = difflib.get_close_matches(key, list(self.fields), n=1)
                hint = (f"did you mean '{closest[0]}'?" if closest
                        else f"allowed keys: {', '.join(self.fields)}" if self.fields
                        else "it takes no other keys")
                walk.report(UNKNOWN_KEY, entry.key, f"{_where(path)}: unknown key '{key}'; {hint}",
                            key=key, **({"replacement": closest[0]} if closest else {}))
        missing = [name for name in self.required if node.get(name) is None]
        for name in missing:
            anchor: YNode = node.entries[0].key if node.entries else node
            walk.report(MISSING_FIELD, anchor, f"{_where(path)}: missing required field '{name}'",
                        field=name)


def _tag_of(node: YNode, tag: str) -> object:
    entry = node.get(tag) if isinstance(node, YMapping) else None
    return getattr(entry.value, "value", None) if entry is not None else None


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
        kind = _tag_of(node, self.tag)
        return self.variants.get(kind) if isinstance(kind, str) else None

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        spec = self.variant(node)
        if spec is None:
            spec = Obj({**self.common, self.tag: self.tag_spec()},
                       (*[k for k in self.common if k == "id"], self.tag), open=True,
                       label=self.label)
        spec.check(walk, node, path)


def _labelled_by(key: str) -> Callable[[YMapping, str], str]:
    """Show a list item's path with its id or name: `workflow.nodes[2] (route)`."""
    def label(mapping: YMapping, path: str) -> str:
        entry = mapping.get(key)
        if entry and isinstance(entry.value, YScalar) and isinstance(entry.value.value, str):
            return f"{path} ({entry.value.value})"
        return path
    return label


_id_label = _labelled_by("id")


def _tagged(tag: str, tag_doc: str, variants: dict[str, tuple[dict[str, Spec], tuple[str, ...]]],
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


RETRY = Obj({
    "max": POSITIVE_INT.described("Total attempts, the first included (max: 3 = up to 2 "
                                  "re-dispatches)."),
    "backoff": Text(enum=("linear", "exponential"),
                    doc="How the delay between attempts grows: linear or exponential."),
    "backoff_ms": POSITIVE_INT.described("The base delay in ms the backoff scales (the engine "
                                         "defaults it)."),
    "retry_on": Seq(Text(enum=RETRYABLE_ERRORS), min_items=1,
                    empty_help=" (omit retry_on to retry any retryable failure)",
                    doc="Which retryable failures consume the budget (omit for all)."),
}, ("max", "backoff"), doc="Re-dispatch the whole node on a retryable failure.")
JS = Text(nonempty=True, blank_is_empty=True, empty_help="write the expression")
TIMEOUT = POSITIVE_INT.described("Wall-clock cap in milliseconds.")
JSON_SCHEMA = MapOf(Free(), doc="A JSON Schema (subset) object the output is validated against.")
COMMON: dict[str, Spec] = {"id": KEBAB_ID.described("The node's kebab-case id, unique in the "
                                                    "workflow.")}
NODE_FIELDS: dict[str, tuple[dict[str, Spec], tuple[str, ...]]] = {
    "input": ({"label": Text(doc="A display label.")}, ()),
    "agent": ({
        "agent_ref": KEBAB_ID.described("The id of the agent (inline or registered) this node "
                                        "runs."),
        "prompt_template": Text(doc="The user prompt; {{ inputs.x }}, {{ ctx.k }} and "
                                    "{{ run.outputs[\"id\"] }} are interpolated."),
        "system_prompt_append": Text(doc="Text appended to the agent's system prompt for this "
                                         "node (sent verbatim)."),
        "tools": Seq(NONEMPTY, doc="Narrows the agent's tools to these names (never widens)."),
        "model": NONEMPTY.described("Overrides the agent's model for this node."),
        "temperature": TEMPERATURE.described("Sampling temperature, 0 to 2."),
        "max_tokens": POSITIVE_INT.described("Cap on generated tokens."),
        "output_schema": JSON_SCHEMA,
        "output_modalities": Seq(Text(enum=OUTPUT_MODALITIES), min_items=1,
                                 empty_help=" (omit output_modalities for text only)",
                                 doc="Non-text output to request: text, image, audio, video."),
        "count": POSITIVE_INT.described("Images per call (image generators)."),
        "duration_seconds": Number(exclusive_minimum=0, doc="Target length in seconds "
                                                            "(audio/video generators)."),
        "timeout_ms": TIMEOUT, "retry": RETRY,
    }, ("agent_ref",)),
    "human_gate": ({
        "gate_type": Text(enum=("approval", "input", "review"), doc="What the human is asked "
                                                                    "for."),
        "assignee": Text(doc="Who should decide."),
        "message_template": Text(doc="The message shown to the human; interpolated."),
        "timeout_ms": TIMEOUT,
        "timeout_action": Text(enum=("reject", "approve"), doc="What happens when the timeout "
                                                               "elapses."),
    }, ("gate_type",)),
    "condition": ({
        "expression": JS.described("A JavaScript expression; its result picks the branch whose "
                                   "when === it."),
        "expression_type": Text(doc="The expression language: js (the only one in v1.0)."),
        "branches": Seq(Obj({
            "when": Free(doc="The value (boolean, string or number) the result must === ."),
            "target_node": KEBAB_ID.described("The node this branch runs."),
        }, ("when", "target_node")), min_items=1,
            doc="when → target_node pairs; the first strict match is taken."),
        "default": KEBAB_ID.described("The node run when no branch matches."),
        "retry": RETRY,
    }, ("expression", "branches")),
    "transform": ({
        "transform": JS.described("A JavaScript expression whose value is this node's output."),
        "expression_type": Text(doc="The expression language: js (the only one in v1.0)."),
        "output_schema": JSON_SCHEMA, "retry": RETRY,
    }, ("transform",)),
    "parallel": ({"parallel_of": Seq(KEBAB_ID, min_items=1,
                                     doc="The nodes run side by side.")}, ("parallel_of",)),
    "merge": ({
        "merge_strategy": Text(enum=("concat", "object_merge", "first", "custom"),
                               doc="How the incoming branches are combined."),
        "merge_fn": Text(doc="A JavaScript expression over `branches` (merge_strategy: custom)."),
        "retry": RETRY,
    }, ("merge_strategy",)),
    "output": ({
        "output_format": Text(doc="A format hint for the output."),
        "save_to": RelativePath(doc="A relative path generated media is written to; may "
                                    "interpolate only {{ run.id }}."),
    }, ()),
}
MERGE_EXPRESSION_TYPE = (
    "merge nodes take no 'expression_type' (merge_fn is always JavaScript); remove the key"
)
NODE = _tagged("type", "The node type.", NODE_FIELDS, COMMON,
               lambda kind: {"expression_type": MERGE_EXPRESSION_TYPE} if kind == "merge" else {},
               _id_label)


NUMBER_VALIDATION = ("min", "max", "enum")
TEXT_VALIDATION = ("format", "pattern", "enum", "min_length", "max_length")


def _other_type_keys(input_type: str, keys: tuple[str, ...], allowed: tuple[str, ...],
                     owner: str) -> dict[str, str]:
    """A validation key of the other kind of input gets its own explanation, not "unknown"."""
    return {key: f"'{key}' applies to {owner} inputs, not to {input_type} ones; {input_type} "
                 f"inputs take {', '.join(allowed)}" for key in keys if key not in allowed}


def _ordered(low: str, high: str) -> Callable[[Walk, YMapping, str], None]:
    def check(walk: Walk, node: YMapping, path: str) -> None:
        low_entry, high_entry = node.get(low), node.get(high)
        if low_entry is None or high_entry is None:
            return
        low_value, high_value = (getattr(e.value, "value", None) for e in (low_entry, high_entry))
        if (isinstance(low_value, int | float) and isinstance(high_value, int | float)
                and not isinstance(low_value, bool) and not isinstance(high_value, bool)
                and low_value > high_value):
            walk.report(INVALID_VALUE, high_entry.value,
                        f"{path}.{high} ({high_value}) is below {low} ({low_value}); swap them")
    return check


NUMBER_VALIDATION_SPEC = Obj({
    "min": Number(doc="The smallest value admitted."),
    "max": Number(doc="The largest value admitted."),
    # The newest engine refuses an enum member of another type than the input's: it never matches.
    "enum": Seq(Number(), doc="The only values admitted."),
}, refused=_other_type_keys("number", TEXT_VALIDATION, NUMBER_VALIDATION, "string-like"),
    extra=_ordered("min", "max"), doc="Checks on the value before the run starts.")
BOOLEAN_VALIDATION_SPEC = Obj({}, refused={
    key: "boolean inputs take no validation; remove the key"
    for key in (*NUMBER_VALIDATION, *TEXT_VALIDATION)}, doc="Boolean inputs take no validation.")


def _text_validation(input_type: str) -> Obj:
    return Obj({
        "format": Text(enum=INPUT_FORMATS, doc="A named format: email, uri, uuid, date-time."),
        "pattern": Regex(doc="A JavaScript regular expression (at most 512 characters)."),
        "enum": Seq(Text(), doc="The only values admitted."),
        "min_length": NON_NEGATIVE_INT.described("The fewest characters admitted."),
        "max_length": NON_NEGATIVE_INT.described("The most characters admitted."),
    }, refused=_other_type_keys(input_type, NUMBER_VALIDATION, TEXT_VALIDATION, "number"),
        extra=_ordered("min_length", "max_length"),
        doc="Checks on the value before the run starts.")


# Validation keys depend on the input's type (workflow.ts VALIDATION_KEYS_BY_TYPE).
VALIDATION_BY_TYPE: dict[str, Obj] = {
    "number": NUMBER_VALIDATION_SPEC, "boolean": BOOLEAN_VALIDATION_SPEC,
    **{kind: _text_validation(kind) for kind in INPUT_TYPES if kind not in ("number", "boolean")},
}


def _input_extra(walk: Walk, node: YMapping, path: str) -> None:
    input_type = _tag_of(node, "type")
    validation = node.get("validation")
    if validation is not None and not isinstance(validation.value, YAlias) \
            and (input_type in INPUT_TYPES or input_type is None):
        VALIDATION_BY_TYPE[str(input_type or "string")].check(walk, validation.value,
                                                             f"{path}.validation")
    default = node.get("default")
    if default is None:
        return
    if isinstance(default.value, YMapping | YSequence):
        walk.warn(INVALID_VALUE, default.value,
                  f"{path}.default is {_describe(default.value)}: the engine loads it (a default "
                  f"is typed unknown) but a {input_type or 'declared'} input never takes "
                  f"{_describe(default.value)} as its value; write a single value")
    elif isinstance(default.value, YScalar) and isinstance(default.value.value, str) \
            and "{{" in default.value.value:
        walk.report(INVALID_VALUE, default.value,
                    f"{path}.default may not use {{{{ }}}}: inputs are resolved before the run "
                    "exists, so inputs, ctx and secrets are unavailable; write a literal value")
    if input_type == "secret":
        walk.report(INVALID_VALUE, default.key,
                    f"{path}: a secret input may not have a default; remove 'default' and "
                    "supply the value at run time")


INPUT = Obj({
    "name": NAME_ID.described("The name read as {{ inputs.<name> }} and inputs.<name>."),
    "type": Text(enum=INPUT_TYPES, doc="The value's type; secret values never reach prompts."),
    "required": Boolean(doc="Whether the run needs a value."),
    "description": Text(doc="What the input is for."),
    "default": Free(doc="The value used when none is given (a literal; no {{ }})."),
    "validation": Free(doc="Checks on the value before the run starts (keys depend on type)."),
}, ("name", "type"), extra=_input_extra, label=_labelled_by("name"))


_MCP_INLINE = ("id", "transport", "command", "args", "env", "url", "allow_local_endpoint")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(.*)\Z", re.DOTALL)


def is_url(value: str) -> bool:
    """Whether the WHATWG URL parser (the engine's `z.string().url()`) takes `value`, as far as
    authors get it wrong: a scheme, and a host after the schemes that need one."""
    found = _SCHEME.match(value)
    if found is None:
        return False
    if found.group(1).lower() not in ("http", "https", "ws", "wss", "ftp"):
        return True
    return bool(re.split(r"[/?#]", found.group(2).lstrip("/\\"), maxsplit=1)[0])


_URL_CREDENTIALS = re.compile(r"[a-z][a-z0-9+.-]*://[^/?#]*@", re.IGNORECASE)


def _mcp_extra(walk: Walk, node: YMapping, path: str) -> None:
    """The engine's McpServerRefSchema refinements: `ref` xor the inline connection fields, and
    per transport the connection field it needs and the ones it refuses."""
    def refuse(key: str, why: str) -> None:
        entry = node.get(key)
        if entry is not None:
            walk.report(UNKNOWN_KEY, entry.key, f"{path}: {why}", key=key)

    if node.get("ref") is not None:
        for key in _MCP_INLINE:
            refuse(key, f"'{key}' is not allowed with 'ref' (the [[mcp_servers]] registration "
                        "provides it); remove it, or drop 'ref' to declare the server inline")
        return
    for key in ("id", "transport"):
        if node.get(key) is None:
            walk.report(MISSING_FIELD, node.entries[0].key if node.entries else node,
                        f"{path}: an inline MCP server needs '{key}' (or use 'ref' to name a "
                        "[[mcp_servers]] registration)", field=key)
    transport = _tag_of(node, "transport")
    url = node.get("url")
    if transport == "stdio":
        command = node.get("command")
        if command is None or getattr(command.value, "value", None) == "":
            walk.report(MISSING_FIELD, node.entries[0].key if node.entries else node,
                        f"{path}: the stdio transport needs a non-empty 'command'",
                        field="command")
        for key in ("url", "allow_local_endpoint"):
            refuse(key, f"'{key}' is not used by the stdio transport (network transports "
                        "only); remove it")
    elif transport in ("http", "sse", "websocket"):
        if url is None:
            walk.report(MISSING_FIELD, node.entries[0].key if node.entries else node,
                        f"{path}: the {transport} transport needs a 'url'", field="url")
        for key in ("command", "args", "env"):
            refuse(key, f"'{key}' is not used by the {transport} transport (it applies only to "
                        "a stdio server process); remove it")
        value = getattr(url.value, "value", None) if url is not None else None
        if isinstance(value, str) and is_url(value):
            scheme = "ws:// or wss://" if transport == "websocket" else "http:// or https://"
            if not re.match(r"wss?://" if transport == "websocket" else r"https?://", value,
                            re.IGNORECASE):
                walk.report(INVALID_VALUE, url.value,  # type: ignore[union-attr]
                            f"{path}.url '{value}' must start with {scheme} for the "
                            f"{transport} transport")
            elif _URL_CREDENTIALS.match(value):
                walk.report(INVALID_VALUE, url.value,  # type: ignore[union-attr]
                            f"{path}.url must not embed credentials (user:pass@…); use env or "
                            "keychain auth")


@dataclass
class Url(Text):
    """A URL (the engine's `z.string().url()`): a scheme and a rest."""

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        reported = len(walk.out)
        super().check(walk, node, path)
        if len(walk.out) == reported and isinstance(node, YScalar) \
                and not is_url(str(node.value)):
            walk.report(INVALID_VALUE, node, f"{path} '{node.value}' is not a URL the engine "
                        "can parse: write a scheme and a host, e.g. https://host/path")


MCP_SERVER = Obj({
    "id": KEBAB_ID.described("The server's kebab-case id (namespaces its tools)."),
    "transport": Text(enum=("stdio", "http", "websocket", "sse"),
                      doc="How to reach the server (sse is a deprecated alias of http)."),
    "command": Text(doc="The program to start (stdio)."),
    "args": Seq(Text(), doc="Its arguments (stdio)."),
    "env": MapOf(Text(), doc="Environment variables for it (stdio)."),
    "url": Url(doc="The server's URL: http(s) for http/sse, ws(s) for websocket."),
    "allow_local_endpoint": Boolean(doc="Allow a private/loopback address (network "
                                        "transports)."),
    "ref": NONEMPTY.described("The name of a [[mcp_servers]] registration (instead of the "
                              "inline fields)."),
    "tools_allowlist": Seq(NONEMPTY, min_items=1,
                           empty_help=" (omit tools_allowlist to admit every tool)",
                           doc="The server's tools the agent may use (omit for all)."),
}, extra=_mcp_extra)


def _unique_mcp_ids(walk: Walk, node: YMapping, path: str) -> None:
    servers = node.get("mcp_servers")
    if servers is None or not isinstance(servers.value, YSequence):
        return
    seen: set[str] = set()
    for item in servers.value.items:
        entry = (item.get("ref") or item.get("id")) if isinstance(item, YMapping) else None
        identity = getattr(entry.value, "value", None) if entry is not None else None
        if entry is None or not isinstance(identity, str):
            continue
        if identity in seen:
            walk.report(INVALID_VALUE, entry.value,
                        f"{path}.mcp_servers: '{identity}' names two servers; MCP server ids "
                        "must be unique within an agent")
        seen.add(identity)


AGENT = Obj({
    "id": KEBAB_ID.described("The agent's kebab-case id, named by agent_ref."),
    "name": Text(doc="A display name."),
    "description": Text(doc="What the agent does."),
    "model": NONEMPTY.described("The model id sent to the provider."),
    "provider": Text(enum=PROVIDERS, doc="The LLM provider."),
    "system_prompt": NONEMPTY.described("The system prompt, sent verbatim (never interpolated)."),
    "temperature": TEMPERATURE.described("Sampling temperature, 0 to 2."),
    "max_tokens": POSITIVE_INT.described("Cap on generated tokens."),
    "reasoning_effort": Text(enum=REASONING_EFFORTS, doc="The reasoning tier: off, low, medium, "
                                                         "high, max."),
    "input_schema": MapOf(Free(), doc="A JSON Schema (subset) object for the turn's input."),
    "output_schema": JSON_SCHEMA,
    "tools": Seq(NONEMPTY, doc="The tools the agent may call."),
    "mcp_servers": Seq(MCP_SERVER, doc="MCP servers whose tools the agent may call."),
    "memory": _tagged("type", "The memory policy: none, summary or window.", {
        "none": ({}, ()), "summary": ({}, ()),
        "window": ({"window_size": POSITIVE_INT.described("How many turns are kept.")},
                   ("window_size",)),
    }).described("Conversational memory."),
    "retry": RETRY,
    "fallback_chain": Seq(Obj({
        "model": NONEMPTY.described("The alternate model."),
        "provider": Text(enum=PROVIDERS, doc="Its provider."),
        "max_attempts": POSITIVE_INT.described("Attempts on this model."),
    }, ("model", "provider", "max_attempts")),
        doc="Alternates tried in order after the primary model is exhausted."),
}, ("id", "model", "provider", "system_prompt"), extra=_unique_mcp_ids, label=_id_label,
    doc="An inline agent.")
AGENT_REF = Obj({"$ref": NONEMPTY.described("The path of an .agent.yaml file.")}, ("$ref",),
                doc="A reference to an external .agent.yaml.")


@dataclass
class AgentEntry(Spec):
    """An `agents:` entry: `{ $ref }` when it has `$ref`, else an inline agent."""

    def form(self, node: YNode) -> Obj:
        return AGENT_REF if isinstance(node, YMapping) and node.get("$ref") is not None else AGENT

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        self.form(node).check(walk, node, path)


def _nested_under(kind: str, keys: tuple[str, ...]) -> dict[str, str]:
    return {key: f"'{key}' belongs under '{kind}:' (write {kind}: {{ {', '.join(keys)} }})"
            for key in keys}


def _trigger_refused(kind: str) -> dict[str, str]:
    if kind == "webhook":
        return _nested_under("webhook", ("path", "secret_env"))
    if kind == "file_change":
        return _nested_under("file_change", ("glob", "debounce_ms"))
    if kind == "schedule":
        return {"cron": "the cron expression is the value of 'schedule' itself (write "
                        "schedule: '0 9 * * *')"}
    return {}


TRIGGER = _tagged("type", "How a run starts.", {
    "manual": ({}, ()),
    "webhook": ({"webhook": Obj({
        "path": NONEMPTY.described("The URL path the webhook listens on."),
        "secret_env": NONEMPTY.described("The environment variable holding the signing secret."),
    }, ("path", "secret_env"), doc="The webhook's settings.")}, ("webhook",)),
    "schedule": ({"schedule": NONEMPTY.described("A cron expression.")}, ("schedule",)),
    "file_change": ({"file_change": Obj({
        "glob": NONEMPTY.described("The files watched."),
        "debounce_ms": NON_NEGATIVE_INT.described("Quiet time in ms before a run starts."),
    }, ("glob", "debounce_ms"), doc="The watch settings.")}, ("file_change",)),
    "mcp_call": ({}, ()),
}, refused=_trigger_refused).described("How a run starts (default: manual).")


EDGE = Obj({
    "from": Text(nonempty=True, empty_help="write a node id, or 'node-id:handle'",
                 doc="The source node id, or 'condition-id:handle' for a branch."),
    "to": KEBAB_ID.described("The target node id."),
    "label": Text(doc="A display label."),
    "condition": Text(doc="A free-text note (the engine does not evaluate it; branch with a "
                          "condition node)."),
}, ("from", "to"))
WORKFLOW = Obj({
    "id": KEBAB_ID.described("The workflow's kebab-case id."),
    "version": Text(doc="The workflow's own version."),
    "name": Text(doc="A display name."),
    "description": Text(doc="What the workflow does."),
    "tags": Seq(Text(), doc="Free labels."),
    "metadata": MapOf(Free(), doc="Free-form provenance (kept through parse and serialize)."),
    "trigger": TRIGGER,
    "inputs": Seq(INPUT, reuse=True, reuse_items=True,
                  doc="The values a run is started with."),
    "context": Seq(Obj({
        "key": NAME_ID.described("The name read as {{ ctx.<key> }} and ctx.<key>."),
        "value": Text(doc="The value; may interpolate inputs and ctx, not run.outputs."),
    }, ("key", "value")), reuse=True, doc="Shared variables, resolved when the run starts."),
    "agents": Seq(AgentEntry(), reuse=True, reuse_items=True,
                  doc="Inline agents, or { $ref: path } to an .agent.yaml."),
    "tools": Obj({
        "allowedCommands": Seq(NONEMPTY, doc="Commands run_command may run (exact match)."),
        "allowedCommandGlobs": Seq(NONEMPTY, doc="Command patterns run_command may run."),
        "allowedDomains": Seq(NONEMPTY, doc="Hosts http_request may reach (exact names)."),
    }, doc="Workflow-wide tool guardrails (empty or absent disables the tool)."),
    "budget": Obj({
        "max_cost_microcents": POSITIVE_INT.described("The run's cost cap in micro-cents."),
        "on_exceed": Text(enum=("fail", "pause_for_approval", "warn"),
                          doc="What happens when the next call would pass the cap."),
        "strict_cost_cap": Boolean(doc="Refuse a call on a model that cannot be priced."),
    }, ("max_cost_microcents", "on_exceed"), doc="A pre-egress cost cap (omit for none)."),
    "timeout_ms": POSITIVE_INT.described("The whole run's wall-clock cap in milliseconds."),
    "max_parallel": POSITIVE_INT.described("Cap on concurrent LLM calls."),
    "nodes": Seq(NODE, min_items=1, reuse=True, reuse_items=True,
                 doc="The workflow's steps."),
    "edges": Seq(EDGE, reuse=True, doc="Directed connections from → to."),
}, ("id", "nodes", "edges"), doc="The workflow.")


def _schema_version(walk: Walk, node: YMapping, path: str) -> None:
    entry = node.get("schema_version")
    if entry is None or isinstance(entry.value, YAlias) or (
            isinstance(entry.value, YScalar) and entry.value.value == "1.0"):
        return
    walk.report(INVALID_VALUE, entry.value,
                f"schema_version must be the string '1.0', not {_describe(entry.value)}; "
                "write schema_version: '1.0'", replacement="'1.0'")


ROOT = Obj({
    "schema_version": Free(doc="The format version: the string '1.0'."),
    "workflow": WORKFLOW,
}, ("schema_version", "workflow"), extra=_schema_version)


def child(spec: Spec, key: str, mapping: YNode | None) -> Spec | None:
    """The spec of `key` in a mapping described by `spec` (None when the key is unknown).
    `mapping` resolves forms that depend on the value (a node's type, an input's type)."""
    if isinstance(spec, Tagged):
        if key == spec.tag:
            return spec.tag_spec()
        form = spec.variant(mapping) if mapping is not None else None
        return form.fields.get(key) if form is not None else spec.common.get(key)
    if isinstance(spec, AgentEntry):
        return child(spec.form(mapping) if mapping is not None else AGENT, key, mapping)
    if isinstance(spec, MapOf):
        return spec.value
    if isinstance(spec, Obj):
        if spec is INPUT and key == "validation" and mapping is not None:
            kind = _tag_of(mapping, "type")
            return VALIDATION_BY_TYPE.get(kind if isinstance(kind, str) else "string")
        return spec.fields.get(key)
    return None


def form_of(spec: Spec, mapping: YNode | None) -> Obj | None:
    """The strict mapping `spec` describes for this `mapping` (a tagged union's form, an agent
    entry's inline or `$ref` form); None when it depends on a tag not yet known."""
    if isinstance(spec, Tagged):
        return spec.variant(mapping) if mapping is not None else None
    if isinstance(spec, AgentEntry):
        return spec.form(mapping) if mapping is not None else AGENT
    return spec if isinstance(spec, Obj) else None


def keys_of(spec: Spec, mapping: YNode | None) -> dict[str, Spec]:
    """The keys a mapping described by `spec` accepts, in authored order, with their specs
    (empty for a mapping with free keys)."""
    form = form_of(spec, mapping)
    if form is None and isinstance(spec, Tagged):
        return {**spec.common, spec.tag: spec.tag_spec()}
    return dict(form.fields) if form is not None else {}


def item_of(spec: Spec) -> Spec | None:
    return spec.item if isinstance(spec, Seq) else None


@dataclass(frozen=True)
class Place:
    """Where an offset sits in the document, as the schema sees it: on the key `key` of
    `mapping` (described by `owner`), or in a value described by `spec`."""

    owner: Spec | None  # the spec of the mapping holding the key (None for a value)
    mapping: YMapping | None
    key: str | None
    spec: Spec | None  # the spec of the key's value, or of the value under the offset
    node: YNode


def spec_at(root: YNode | None, offset: int) -> Place | None:
    """The schema's view of the innermost key or scalar value containing `offset`."""
    spec: Spec | None = ROOT
    node = root
    while node is not None and spec is not None:
        if isinstance(node, YMapping):
            # The last candidate: a block collection's end is where the next key starts.
            entry = next((e for e in reversed(node.entries)
                          if e.key.start <= offset <= e.value.end), None)
            if entry is None:
                return None
            value_spec = child(spec, entry.key.text, node)
            if entry.key.start <= offset <= entry.key.end:
                return Place(spec, node, entry.key.text, value_spec, entry.key)
            spec, node = value_spec, entry.value
        elif isinstance(node, YSequence):
            spec = item_of(spec)
            node = next((item for item in reversed(node.items)
                         if item.start <= offset <= item.end), None)
        elif isinstance(node, YScalar):
            return Place(None, None, None, spec, node)
        else:
            return None
    return None


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


def _read_place(live: str, offset: int) -> Place | None:
    text, at = focused(live, offset)
    place = spec_at(read_yaml(SourceText(text)).root, at)
    if place is None and text is not live:
        place = spec_at(read_yaml(SourceText(live)).root, offset)
    return place


def schema_place(text: str, start: int, end: int, replacement: str) -> Place | None:
    """`spec_at` in `text` with `text[start:end]` replaced (a placeholder for what is being
    typed, so that half-typed text still reads as YAML); None when it does not."""
    live = text[:start] + replacement + text[end:]
    place = _read_place(live, start)
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
    return _read_place(live, start)


def validate(ctx: RuleContext, earlier: SchemaMemo | None = None
             ) -> tuple[list[Diagnostic], SchemaMemo | None]:
    """The walk's diagnostics and its memo (`earlier`, the previous version's, when there was
    nothing to walk); units whose text `earlier` holds are not checked again."""
    root = ctx.document.root
    if root is None:
        return [ctx.diagnostic(
            MISSING_FIELD, Severity.ERROR, 0, 0,
            "the file is empty: a workflow needs schema_version: '1.0' and a workflow mapping",
            {"field": "schema_version"},
        )], earlier
    walk = Walk(ctx, earlier)
    ROOT.check(walk, root, "")
    return [ctx.diagnostic(rule, severity, start, end, message, data)
            for rule, severity, start, end, message, data in walk.out], walk.memo()
