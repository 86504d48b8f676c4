"""The workflow schema (strict mappings, as the engine's) and its walk.

Contract: `validate(ctx)` returns `unknown-key`, `missing-field` and `invalid-value` diagnostics
for the whole file (the three rule modules each publish their own). Every message names the field
by its path (`workflow.nodes[2].branches[0].target_node`, with the node id when known) and says
what to write. Fields whose checks belong to a dedicated rule are only type-checked here:
`expression_type` (reserved-/unknown-expression-type), `when` (condition-when-type), `merge_fn`
presence (missing-/unused-merge-fn), references to other nodes (unknown-node). Inline agents
accept keys beyond the ones listed in the format summary (the engine's agent schema is richer);
only their `id`, `model`, `provider` and `system_prompt` are checked. Triggers likewise accept
options beyond their known ones, and `retry.retry_on` is not checked.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from analysis.diagnostics import Diagnostic, Severity
from analysis.yaml_tree import YAlias, YMapping, YNode, YScalar, YSequence, resolve_plain
from sandbox.syntax import check_syntax

if TYPE_CHECKING:
    from analysis.rules import RuleContext

UNKNOWN_KEY = "unknown-key"
MISSING_FIELD = "missing-field"
INVALID_VALUE = "invalid-value"

KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
NAME = re.compile(r"[A-Za-z0-9_-]+\Z")
NODE_TYPES = ("input", "agent", "human_gate", "condition", "transform", "parallel", "merge",
              "output")
INPUT_TYPES = ("string", "number", "boolean", "file_path", "code_diff", "secret")


def kebab_suggestion(text: str) -> str:
    """The kebab-case spelling of an id (`Fetch_Data` → `fetch-data`)."""
    words = re.findall(r"[a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text).lower())
    return "-".join(words)


class Walk:
    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self.out: list[Diagnostic] = []

    def report(self, rule: str, node: YNode, message: str, **data: Any) -> None:
        self.out.append(
            self.ctx.diagnostic(rule, Severity.ERROR, node.start, node.end, message, data or None)
        )


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


class Spec:
    def check(self, walk: Walk, node: YNode, path: str) -> None:
        raise NotImplementedError


@dataclass
class Free(Spec):
    """Anything (free maps like `metadata`, JSON schemas)."""

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        return None


@dataclass
class Text(Spec):
    pattern: re.Pattern[str] | None = None
    pattern_help: str = ""
    enum: tuple[str, ...] = ()
    nonempty: bool = False

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
        elif self.nonempty and not value.strip():
            walk.report(INVALID_VALUE, node, f"{path} must not be empty: write the expression")
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


@dataclass
class Number(Spec):
    integer: bool = False
    minimum: float | None = None
    maximum: float | None = None

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        value = node.value if isinstance(node, YScalar) else None
        # JavaScript has one number type: the engine's `.int()` accepts `3e5` and `1000.0`.
        ok_type = isinstance(value, int) or (
            isinstance(value, float) and (value.is_integer() or not self.integer))
        if isinstance(value, bool) or not ok_type:
            kind = "an integer" if self.integer else "a number"
            walk.report(INVALID_VALUE, node,
                        f"{path} must be {kind}, not {_describe(node)}{_unquote_hint(node)}")
            return
        assert isinstance(node, YScalar) and isinstance(value, int | float)
        if (self.minimum is not None and value < self.minimum) or (
            self.maximum is not None and value > self.maximum
        ):
            bounds = (f"between {self.minimum:g} and {self.maximum:g}" if self.maximum is not None
                      else f"at least {self.minimum:g}")
            walk.report(INVALID_VALUE, node, f"{path} must be {bounds}, not {node.text}")


@dataclass
class Boolean(Spec):
    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if not (isinstance(node, YScalar) and isinstance(node.value, bool)):
            walk.report(INVALID_VALUE, node,
                        f"{path} must be true or false, not {_describe(node)}"
                        f"{_unquote_hint(node)}")


@dataclass
class ScalarValue(Spec):
    """Any scalar (a `default`, an enum member); lists and mappings are refused."""

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if not isinstance(node, YScalar):
            walk.report(INVALID_VALUE, node,
                        f"{path} must be a single value, not {_describe(node)}")


@dataclass
class Seq(Spec):
    item: Spec
    min_items: int = 0

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if not isinstance(node, YSequence):
            walk.report(INVALID_VALUE, node, f"{path} must be a list, not {_describe(node)}")
            return
        if len(node.items) < self.min_items:
            walk.report(INVALID_VALUE, node, f"{path} must have at least {self.min_items} "
                        f"item{'s' if self.min_items > 1 else ''}")
        for index, item in enumerate(node.items):
            if not isinstance(item, YAlias):
                self.item.check(walk, item, f"{path}[{index}]")


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
                        else f"allowed keys: {', '.join(self.fields)}")
                walk.report(UNKNOWN_KEY, entry.key, f"{_where(path)}: unknown key '{key}'; {hint}",
                            key=key, **({"replacement": closest[0]} if closest else {}))
        missing = [name for name in self.required if node.get(name) is None]
        for name in missing:
            anchor: YNode = node.entries[0].key if node.entries else node
            walk.report(MISSING_FIELD, anchor, f"{_where(path)}: missing required field '{name}'",
                        field=name)


def _labelled_by(key: str) -> Callable[[YMapping, str], str]:
    """Show a list item's path with its id or name: `workflow.nodes[2] (route)`."""
    def label(mapping: YMapping, path: str) -> str:
        entry = mapping.get(key)
        if entry and isinstance(entry.value, YScalar) and isinstance(entry.value.value, str):
            return f"{path} ({entry.value.value})"
        return path
    return label


_id_label = _labelled_by("id")


RETRY = Obj({
    "max": Number(integer=True, minimum=0),
    "backoff": Text(enum=("linear", "exponential")),
    "backoff_ms": Number(integer=True, minimum=0),
    "retry_on": Free(),
})
JS = Text(nonempty=True)
TIMEOUT = Number(integer=True, minimum=1)
COMMON: dict[str, Spec] = {"id": KEBAB_ID, "type": Text(enum=NODE_TYPES)}
NODE_FIELDS: dict[str, tuple[dict[str, Spec], tuple[str, ...]]] = {
    "input": ({"label": Text()}, ()),
    "agent": ({
        "agent_ref": KEBAB_ID, "prompt_template": Text(), "system_prompt_append": Text(),
        "tools": Free(), "model": Text(), "temperature": Number(minimum=0, maximum=2),
        "max_tokens": Number(integer=True, minimum=1), "output_schema": Free(),
        "output_modalities": Free(), "count": Number(integer=True, minimum=0),
        "duration_seconds": Number(minimum=0), "timeout_ms": TIMEOUT, "retry": RETRY,
    }, ("agent_ref",)),
    "human_gate": ({
        "gate_type": Text(enum=("approval", "input", "review")), "assignee": Text(),
        "message_template": Text(), "timeout_ms": TIMEOUT,
        "timeout_action": Text(enum=("reject", "approve")),
    }, ("gate_type",)),
    "condition": ({
        "expression": JS, "expression_type": Text(),
        "branches": Seq(Obj({"when": Free(), "target_node": KEBAB_ID},
                            ("when", "target_node")), min_items=1),
        "default": KEBAB_ID, "retry": RETRY,
    }, ("expression", "branches")),
    "transform": ({
        "transform": JS, "expression_type": Text(), "output_schema": Free(), "retry": RETRY,
    }, ("transform",)),
    "parallel": ({"parallel_of": Seq(KEBAB_ID, min_items=1)}, ("parallel_of",)),
    "merge": ({
        "merge_strategy": Text(enum=("concat", "object_merge", "first", "custom")),
        "merge_fn": Text(), "retry": RETRY,
    }, ("merge_strategy",)),
    "output": ({"output_format": Text(), "save_to": RelativePath()}, ()),
}
MERGE_EXPRESSION_TYPE = (
    "merge nodes take no 'expression_type' (merge_fn is always JavaScript); remove the key"
)


NODE_SPECS = {
    node_type: Obj(
        {**COMMON, **fields}, ("id", "type", *required),
        {"expression_type": MERGE_EXPRESSION_TYPE} if node_type == "merge" else {},
        label=_id_label,
    )
    for node_type, (fields, required) in NODE_FIELDS.items()
}
# Without a known type the allowed keys are unknown: check id and type only.
UNTYPED_NODE = Obj(COMMON, ("id", "type"), open=True, label=_id_label)


@dataclass
class NodeSpec(Spec):
    def check(self, walk: Walk, node: YNode, path: str) -> None:
        type_entry = node.get("type") if isinstance(node, YMapping) else None
        node_type = getattr(type_entry.value, "value", None) if type_entry else None
        spec = NODE_SPECS.get(node_type) if isinstance(node_type, str) else None
        (spec or UNTYPED_NODE).check(walk, node, path)


NUMBER_VALIDATION = ("min", "max", "enum")
TEXT_VALIDATION = ("format", "pattern", "enum", "min_length", "max_length")


def _other_type_keys(input_type: str, keys: tuple[str, ...], allowed: tuple[str, ...],
                     owner: str) -> dict[str, str]:
    """A validation key of the other kind of input gets its own explanation, not "unknown"."""
    return {key: f"'{key}' applies to {owner} inputs, not to {input_type} ones; {input_type} "
                 f"inputs take {', '.join(allowed)}" for key in keys if key not in allowed}


def _validation_spec(input_type: str | None) -> Obj:
    if input_type == "number":
        return Obj({"min": Number(), "max": Number(), "enum": Seq(Number())},
                   refused=_other_type_keys("number", TEXT_VALIDATION, NUMBER_VALIDATION,
                                            "string-like"),
                   extra=_ordered("min", "max"))
    if input_type == "boolean":
        return Obj({}, refused={key: "boolean inputs take no validation; remove the key"
                                for key in (*NUMBER_VALIDATION, *TEXT_VALIDATION)})
    return Obj({
        "format": Text(enum=("email", "uri", "uuid", "date-time")), "pattern": Regex(),
        # The engine refuses an enum member of another type than the input's: it never matches.
        "enum": Seq(Text()), "min_length": Number(integer=True, minimum=0),
        "max_length": Number(integer=True, minimum=0),
    }, refused=_other_type_keys(input_type or "string", NUMBER_VALIDATION, TEXT_VALIDATION,
                                "number"),
        extra=_ordered("min_length", "max_length"))


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


def _input_extra(walk: Walk, node: YMapping, path: str) -> None:
    type_entry = node.get("type")
    input_type = getattr(type_entry.value, "value", None) if type_entry else None
    validation = node.get("validation")
    if validation is not None and (input_type in INPUT_TYPES or input_type is None):
        _validation_spec(input_type).check(walk, validation.value, f"{path}.validation")
    default = node.get("default")
    if (default is not None and isinstance(default.value, YScalar)
            and isinstance(default.value.value, str) and "{{" in default.value.value):
        walk.report(INVALID_VALUE, default.value,
                    f"{path}.default may not use {{{{ }}}}: inputs are resolved before the run "
                    "exists, so inputs, ctx and secrets are unavailable; write a literal value")
    if input_type == "secret" and default is not None:
        walk.report(INVALID_VALUE, default.key,
                    f"{path}: a secret input may not have a default; remove 'default' and "
                    "supply the value at run time")


INPUT = Obj({
    "name": NAME_ID, "type": Text(enum=INPUT_TYPES), "required": Boolean(),
    "description": Text(), "default": ScalarValue(), "validation": Free(),
}, ("name", "type"), extra=_input_extra, label=_labelled_by("name"))


@dataclass
class AgentSpec(Spec):
    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if isinstance(node, YMapping) and node.get("$ref") is not None:
            ref_fields: dict[str, Spec] = {"$ref": Text(nonempty=True)}
            Obj(ref_fields, ("$ref",)).check(walk, node, path)
        else:
            Obj({"id": KEBAB_ID, "system_prompt": Text(), "model": Text(), "provider": Text()},
                ("id",), open=True, label=_id_label).check(walk, node, path)


TRIGGER_FIELDS: dict[str, dict[str, Spec]] = {
    "manual": {},
    "webhook": {"path": Text(), "secret_env": Text()},
    "schedule": {"cron": Text()},
    "file_change": {"glob": Text(), "debounce_ms": Number(integer=True, minimum=0)},
    "mcp_call": {},
}


@dataclass
class TriggerSpec(Spec):
    def check(self, walk: Walk, node: YNode, path: str) -> None:
        kind = None
        if isinstance(node, YMapping) and node.get("type") is not None:
            kind = getattr(node.get("type").value, "value", None)  # type: ignore[union-attr]
        type_spec = Text(enum=tuple(TRIGGER_FIELDS))
        if kind not in TRIGGER_FIELDS:
            Obj({"type": type_spec}, ("type",), open=True).check(walk, node, path)
            return
        # The summary of the format does not list every trigger option: type-check the known
        # ones and let others pass rather than report a key the engine may accept.
        Obj({"type": type_spec, **TRIGGER_FIELDS[str(kind)]}, ("type",),
            open=True).check(walk, node, path)


EDGE = Obj({"from": Text(nonempty=True), "to": KEBAB_ID, "label": Text()}, ("from", "to"),
           refused={"condition": "edges take no 'condition'; put the test in a condition node "
                    "and draw the edge from its 'node-id:handle'"})
WORKFLOW = Obj({
    "id": KEBAB_ID, "version": Text(), "name": Text(), "description": Text(),
    "tags": Seq(Text()), "metadata": Free(), "trigger": TriggerSpec(), "inputs": Seq(INPUT),
    "context": Seq(Obj({"key": NAME_ID, "value": Text()}, ("key", "value"))),
    "agents": Seq(AgentSpec()),
    "tools": Obj({name: Seq(Text()) for name in
                  ("allowedCommands", "allowedCommandGlobs", "allowedDomains")}),
    "budget": Obj({
        "max_cost_microcents": Number(integer=True, minimum=0),
        "on_exceed": Text(enum=("fail", "pause_for_approval", "warn")),
        "strict_cost_cap": Boolean(),
    }),
    "timeout_ms": TIMEOUT, "max_parallel": Number(integer=True, minimum=1),
    "nodes": Seq(NodeSpec(), min_items=1), "edges": Seq(EDGE),
}, ("id", "nodes", "edges"))


def _schema_version(walk: Walk, node: YMapping, path: str) -> None:
    entry = node.get("schema_version")
    if entry is None or (isinstance(entry.value, YScalar) and entry.value.value == "1.0"):
        return
    walk.report(INVALID_VALUE, entry.value,
                f"schema_version must be the string '1.0', not {_describe(entry.value)}; "
                "write schema_version: '1.0'", replacement="'1.0'")


ROOT = Obj({"schema_version": Free(), "workflow": WORKFLOW}, ("schema_version", "workflow"),
           extra=_schema_version)


def validate(ctx: RuleContext) -> list[Diagnostic]:
    walk = Walk(ctx)
    root = ctx.document.root
    if root is None:
        walk.out.append(ctx.diagnostic(
            MISSING_FIELD, Severity.ERROR, 0, 0,
            "the file is empty: a workflow needs schema_version: '1.0' and a workflow mapping",
            {"field": "schema_version"},
        ))
        return walk.out
    ROOT.check(walk, root, "")
    return walk.out
