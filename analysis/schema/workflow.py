"""The engine's workflow schema as data (workflow.ts, node.ts, edge.ts, constants.ts), and the
validation of a workflow file against it.

Contract: `validate(source, root, earlier)` returns the `unknown-key`, `missing-field` and
`invalid-value` diagnostics of the whole file, the same with or without `earlier` (the previous
version's `SchemaMemo`, whose findings it takes over for the lists and items whose text is
unchanged), and this version's memo. Fields whose checks belong to a dedicated rule are only
type-checked here: `expression_type` (reserved-/unknown-expression-type), `when`
(condition-when-type), `merge_fn` presence (missing-/unused-merge-fn), references to other nodes
(unknown-node), duplicate ids (duplicate-id).

`ROOT` is the document (`schema_version`, `workflow`); `WORKFLOW` the body under `workflow:`;
`NODE` a node, its form chosen by its `type`; `INPUT` an input, whose `validation` keys its
`type` chooses (`VALIDATION_BY_TYPE`); the agents are `analysis.schema.agent`'s. Where we
knowingly differ from the engine, docs/rules.md ("Known differences from the engine") says so.
"""

from __future__ import annotations

from collections.abc import Callable

from analysis.diagnostics import Diagnostic
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YAlias, YMapping, YNode, YScalar
from analysis.document.yaml_profile import INVALID_VALUE
from analysis.schema.agent import AGENT_ENTRY
from analysis.schema.ceilings import MAX_PARALLEL
from analysis.schema.common import (
    ID_LABEL,
    KEBAB_ID,
    NAME_ID,
    NON_NEGATIVE_INT,
    NONEMPTY,
    POSITIVE_INT,
    RETRY,
    TEMPERATURE,
)
from analysis.schema.formats import Regex, RelativePath
from analysis.schema.input_defaults import contract_problem, interpolations
from analysis.schema.output_schema import OUTPUT_SCHEMA
from analysis.schema.vocabulary import (
    Boolean,
    BySibling,
    Free,
    MapOf,
    Number,
    Obj,
    Seq,
    Spec,
    Text,
    describe_node,
    labelled_by,
    tag_of,
    tagged,
)
from analysis.schema.walk import SchemaMemo, Walk, validate_file

NODE_TYPES = ("input", "agent", "human_gate", "condition", "transform", "parallel", "merge",
              "output")
INPUT_TYPES = ("string", "number", "boolean", "file_path", "code_diff", "secret")
OUTPUT_MODALITIES = ("text", "image", "audio", "video")
INPUT_FORMATS = ("email", "uri", "uuid", "date-time")

JS = Text(nonempty=True, blank_is_empty=True, empty_help="write the expression")
TIMEOUT = POSITIVE_INT.described("Wall-clock cap in milliseconds.")
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
        "output_schema": OUTPUT_SCHEMA,
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
        "output_schema": OUTPUT_SCHEMA, "retry": RETRY,
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
NODE = tagged("type", "The node type.", NODE_FIELDS, COMMON,
               lambda kind: {"expression_type": MERGE_EXPRESSION_TYPE} if kind == "merge" else {},
               ID_LABEL)


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


SECRET_ENUM = ("a secret input may not have 'enum': its values would be written into the "
               "workflow snapshot the engine stores (ADR-0083 §6 as amended); constrain its shape "
               "with pattern instead")


def _text_validation(input_type: str) -> Obj:
    fields: dict[str, Spec] = {
        "format": Text(enum=INPUT_FORMATS, doc="A named format: email, uri, uuid, date-time."),
        "pattern": Regex(doc="A JavaScript regular expression (at most 512 characters)."),
        "enum": Seq(Text(), doc="The only values admitted."),
        "min_length": NON_NEGATIVE_INT.described("The fewest characters admitted."),
        "max_length": NON_NEGATIVE_INT.described("The most characters admitted."),
    }
    refused = _other_type_keys(input_type, NUMBER_VALIDATION, TEXT_VALIDATION, "number")
    if input_type == "secret":
        del fields["enum"]
        refused["enum"] = SECRET_ENUM
    return Obj(fields, refused=refused, extra=_ordered("min_length", "max_length"),
               doc="Checks on the value before the run starts.")


# Validation keys depend on the input's type (workflow.ts VALIDATION_KEYS_BY_TYPE).
VALIDATION_BY_TYPE: dict[str, Obj] = {
    "number": NUMBER_VALIDATION_SPEC, "boolean": BOOLEAN_VALIDATION_SPEC,
    **{kind: _text_validation(kind) for kind in INPUT_TYPES if kind not in ("number", "boolean")},
}


def _input_extra(walk: Walk, node: YMapping, path: str) -> None:
    """The newest engine's refusals of a `default` (ADR-0083 §3/§4/§6 as amended; the newest
    `packages/shared/src/workflow.ts` WorkflowInputSchema): a terminated `{{ … }}` pair in any
    string of it, any default on a secret, and one that breaks the input's own contract."""
    input_type = tag_of(node, "type")
    default = node.get("default")
    if default is None:
        return
    for scalar in interpolations(default.value):
        walk.report(INVALID_VALUE, scalar,
                    f"{path}.default may not use {{{{ }}}}: inputs are resolved before the run "
                    "exists, so inputs, ctx and secrets are unavailable; write a literal value")
    if input_type == "secret":
        walk.report(INVALID_VALUE, default.key,
                    f"{path}: a secret input may not have a default; remove 'default' and "
                    "supply the value at run time")
        return
    if not isinstance(input_type, str) or input_type not in INPUT_TYPES:
        return
    validation = node.get("validation")
    value = default.value.value if isinstance(default.value, YScalar) else default.value
    problem = contract_problem(value, input_type, validation.value if validation is not None
                               and isinstance(validation.value, YMapping) else None)
    if problem is not None:
        shown = "a string" if isinstance(value, str) else describe_node(default.value)
        walk.report(INVALID_VALUE, default.value,
                    f"{path}.default is {shown}, but {problem}: the "
                    "engine refuses a default its own input would refuse; change the default "
                    "or the validation")


INPUT = Obj({
    "name": NAME_ID.described("The name read as {{ inputs.<name> }} and inputs.<name>."),
    "type": Text(enum=INPUT_TYPES, doc="The value's type; secret values never reach prompts."),
    "required": Boolean(doc="Whether the run needs a value."),
    "description": Text(doc="What the input is for."),
    "default": Free(doc="The value used when none is given (a literal; no {{ }})."),
    "validation": BySibling("type", VALIDATION_BY_TYPE, "string",
                            doc="Checks on the value before the run starts (keys depend on "
                                "type)."),
}, ("name", "type"), extra=_input_extra, label=labelled_by("name"))


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


TRIGGER = tagged("type", "How a run starts.", {
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
    "agents": Seq(AGENT_ENTRY, reuse=True, reuse_items=True,
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
    "max_parallel": Number(integer=True, minimum=1, maximum=MAX_PARALLEL, ceiling=True,
                           doc="Cap on concurrent LLM calls (8 when omitted)."),
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
                f"schema_version must be the string '1.0', not {describe_node(entry.value)}; "
                "write schema_version: '1.0'", replacement="'1.0'")


ROOT = Obj({
    "schema_version": Free(doc="The format version: the string '1.0'."),
    "workflow": WORKFLOW,
}, ("schema_version", "workflow"), extra=_schema_version)


def validate(source: SourceText, root: YNode | None, earlier: SchemaMemo | None = None
             ) -> tuple[list[Diagnostic], SchemaMemo | None]:
    """The diagnostics of the workflow file `source` (read as `root`) and the walk's memo
    (`earlier`, the previous version's, when there was nothing to walk); units whose text
    `earlier` holds are not checked again."""
    return validate_file(
        ROOT, source, root, earlier,
        "the file is empty: a workflow needs schema_version: '1.0' and a workflow mapping",
        "schema_version")
