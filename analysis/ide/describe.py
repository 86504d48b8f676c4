"""Short descriptions of what a workflow declares, and one-line docs of what an expression can
use, shared by hover and completion (Markdown).

Contract:
- `node_summary(workflow, node)`, `input_summary(decl, secret)`, `context_summary(entry, secret)`,
  `agent_summary(agent)`: one or two lines each.
- `file_agent_text(agent)`: an agent resolved from an agent file (`analysis.project.workspace`):
  model, provider, tools, its output_schema's shape, the first lines of its system prompt and
  its file, one paragraph each.
- `gating_summary(graph, node_id, every=None)`: the condition branches that gate the node (`gated by
  route:urgent`), and which of them it runs past (leaked-branch); None when none gates it.
- `code_span(text)`: authored text as a Markdown code span that survives backticks inside it.
- `BINDING_DOCS` (the scope bindings), `GLOBAL_DOCS` (the globals the sandbox provides, per the
  sandbox spec's "Language surface"), `MEMBER_DOCS` (members offered after `Math.`, `JSON.`, …;
  `Math.random` is absent on purpose), `FORBIDDEN_DOC` (why an absent global is absent).
- `model_doc(root, offset)`: for a `model` value under the cursor that the engine's registry
  carries, its display name, provider, context window, max output and price, and the value's span.
"""

from __future__ import annotations

import re

from analysis.document.gating import BranchGate, gates_by_node
from analysis.document.graph import Graph
from analysis.document.model import (
    AgentDecl,
    ContextDecl,
    FileAgent,
    InputDecl,
    NodeDef,
    Workflow,
)
from analysis.document.yaml_nodes import YMapping, YNode, YScalar, YSequence, plain_value
from analysis.project.workspace import AgentEntry
from analysis.schema.lookups import form_of, spec_at
from analysis.schema.models import describe, model
from analysis.schema.vocabulary import Boolean, IfKey, MapOf, Number, Obj, Seq, Spec, Tagged, Text
from analysis.schema.workflow import ROOT

# How many of an agent's output_schema properties a hover names.
MAX_SCHEMA_PROPERTIES = 8

BINDING_DOCS = {
    "inputs": "The run's admitted inputs (`inputs.name`); declared secrets are denied.",
    "ctx": "The workflow context, in declaration order (`ctx.key`); secret-derived keys are "
           "denied.",
    "run": "`run.outputs`: the outputs of this node's completed ancestors, by node id.",
    "branches": "merge_fn only: the parallel branches' outputs, in fan-in (declaration) order.",
    "outputs": "The completed ancestors' outputs by node id (`run.outputs[\"id\"]`); any other "
               "node reads `undefined`.",
}

GLOBAL_DOCS = {
    "Object": "Object constructor and its pure static methods (keys, entries, assign, …).",
    "Array": "Array constructor (isArray, from, of) and array methods.",
    "String": "String constructor and string methods.",
    "Number": "Number constructor (isInteger, parseFloat, …).",
    "Boolean": "Boolean constructor.",
    "Math": "Math functions and constants; Math.random is removed (expressions are "
            "deterministic).",
    "JSON": "JSON.parse and JSON.stringify.",
    "Map": "Insertion-ordered Map.",
    "Set": "Insertion-ordered Set.",
    "WeakMap": "WeakMap (present, deterministic).",
    "WeakSet": "WeakSet (present, deterministic).",
    "RegExp": "Regular expressions (backtracking is bounded by the time limit).",
    "Reflect": "Reflect (pure, reaches nothing outside the sandbox).",
    "Symbol": "Symbol (pure, reaches nothing outside the sandbox).",
    "BigInt": "BigInt; a BigInt result is refused (JSON has no BigInt).",
    "parseInt": "parseInt(string, radix).",
    "parseFloat": "parseFloat(string).",
    "isNaN": "isNaN(value).",
    "isFinite": "isFinite(value).",
    "undefined": "The undefined value.",
    "NaN": "Not-a-Number.",
    "Infinity": "Positive infinity.",
}

_MATH_FUNCTIONS = (
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "clz32",
    "cos", "cosh", "exp", "expm1", "floor", "fround", "hypot", "imul", "log", "log10", "log1p",
    "log2", "max", "min", "pow", "round", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
)
_MATH_CONSTANTS = ("E", "LN10", "LN2", "LOG10E", "LOG2E", "PI", "SQRT1_2", "SQRT2")

MEMBER_DOCS: dict[str, dict[str, str]] = {
    "Math": {
        **{name: f"Math.{name}()" for name in _MATH_FUNCTIONS},
        **{name: f"Math.{name} (constant)" for name in _MATH_CONSTANTS},
    },
    "JSON": {"parse": "JSON.parse(text)", "stringify": "JSON.stringify(value, replacer, space)"},
    "Object": {
        name: f"Object.{name}()"
        for name in ("assign", "entries", "freeze", "fromEntries", "groupBy", "hasOwn", "keys",
                     "values")
    },
    "Array": {name: f"Array.{name}()" for name in ("from", "isArray", "of")},
    "Number": {
        name: f"Number.{name}()"
        for name in ("isFinite", "isInteger", "isNaN", "isSafeInteger", "parseFloat", "parseInt")
    },
    "String": {name: f"String.{name}()" for name in ("fromCharCode", "fromCodePoint", "raw")},
}

FORBIDDEN_DOC = (
    "Not available in the expression sandbox (no clock, randomness, asynchrony or I/O): using "
    "it fails when the node runs."
)


def _scalar_text(node: NodeDef, name: str) -> str | None:
    entry = node.entry(name)
    if entry is not None and isinstance(entry.value, YScalar) and entry.value.value is not None:
        return entry.value.text
    return None


def code_span(text: str) -> str:
    """`text` as one Markdown code span, whatever it holds: fenced by a backtick run longer than
    any inside it, so a template literal `${x}` stays one span. CommonMark strips one space from
    each end of a span's content when both are spaces, so content that starts or ends with a
    space or a backtick is padded with one space each side; a line break would render as a space
    anyway (and a blank line would end the paragraph)."""
    text = re.sub(r"\r\n|\r|\n", " ", text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.strip(" ") != "" and (text[0] in "` " or text[-1] in "` "):
        text = f" {text} "
    elif text == "":
        text = " "  # an empty span would be two backticks, not a code span
    return f"{fence}{text}{fence}"


def _first_line(text: str, limit: int = 60) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def node_summary(workflow: Workflow, node: NodeDef,
                 file_agent: FileAgent | None = None) -> str:
    """`agent` · label, plus what the node does in a few words (an agent node's output
    properties from its `output_schema`, or its agent's, with `file_agent` an agent file's)."""
    parts = [code_span(node.type or "unknown type")]
    label = _scalar_text(node, "label")
    if label:
        parts.append(label)
    if node.type == "agent" and node.agent_ref is not None:
        parts.append(f"agent {code_span(node.agent_ref.id)}")
        schema = workflow.output_schema_of(node, file_agent)
        fields = plain_value(schema.value) if schema is not None else None
        properties = fields.get("properties") if isinstance(fields, dict) else None
        if isinstance(properties, dict) and properties:
            parts.append("outputs " + ", ".join(code_span(str(key)) for key in properties))
    elif node.type == "condition":
        arms = [f"{branch.handle} → {branch.target.id}" for branch in node.branches
                if branch.handle is not None and branch.target is not None]
        if node.default is not None:
            arms.append(f"default → {node.default.id}")
        parts.append(", ".join(arms))
    elif node.type == "parallel":
        parts.append("runs " + ", ".join(member.id for member in node.parallel_of))
    elif node.type == "merge" and node.merge_strategy:
        parts.append(f"merge_strategy {code_span(node.merge_strategy)}")
    elif node.type == "human_gate":
        gate = _scalar_text(node, "gate_type")
        if gate:
            parts.append(f"{gate} gate")
    elif node.type == "output":
        output_format = _scalar_text(node, "output_format")
        if output_format:
            parts.append(f"format {code_span(output_format)}")
    if node.expression is not None:
        parts.append(code_span(_first_line(node.expression.value)))
    return " · ".join(part for part in parts if part)


def gating_summary(graph: Graph, node_id: str,
                   every: list[BranchGate] | None = None) -> str | None:
    """`every`: the graph's `branch_gates` when the caller has them already."""
    gates = gates_by_node(graph, every).get(node_id, [])
    if not gates:
        return None
    text = "gated by " + ", ".join(code_span(gate.label) for gate in gates)
    leaked = [gate for gate in gates if node_id in gate.runs_anyway]
    if leaked:
        text += " · ⚠ runs also when " + ", ".join(
            f"{code_span(gate.condition)} chooses another branch" for gate in leaked
        ) + " (leaked-branch)"
    return text


def input_summary(decl: InputDecl, secret: bool) -> str:
    values = plain_value(decl.mapping)
    parts = [f"{code_span(decl.type or 'untyped')} input"]
    parts.append("required" if values.get("required") is True else "optional")
    if "default" in values:
        parts.append(f"default {code_span(repr(values['default']))}")
    if isinstance(values.get("description"), str):
        parts.append(values["description"])
    text = " · ".join(parts)
    if secret:
        text += ("\n\nSecret: expressions never see it (reading it fails with `secret_context`); "
                 "templates may interpolate it only where the engine allows.")
    return text


def context_summary(entry: ContextDecl, secret: bool) -> str:
    value = entry.value.value if entry.value is not None else None
    shown = _first_line(value) if value is not None else "(not a string)"
    text = f"context value {code_span(shown)}"
    if secret:
        text += ("\n\nDerived from a secret input: expressions cannot read it (the read fails "
                 "with `secret_context`).")
    return text


def agent_summary(agent: AgentDecl) -> str:
    if agent.is_ref:
        return "agent defined in another file (`$ref`)"
    values = plain_value(agent.mapping)
    parts = ["agent"]
    for key in ("model", "provider"):
        if isinstance(values.get(key), str):
            parts.append(f"{key} {code_span(values[key])}")
    if agent.system_prompt is not None:
        parts.append(_first_line(agent.system_prompt.value))
    return " · ".join(parts)


def file_agent_text(agent: AgentEntry) -> str:
    parts = ["agent"] + [f"{key} {code_span(value)}" for key, value in
                         (("model", agent.model), ("provider", agent.provider)) if value]
    lines = [" · ".join(parts)]
    tools = agent.tools
    if tools is None:
        lines.append("tools: its MCP servers' (known when the run starts)")
    elif tools:
        lines.append("tools: " + ", ".join(map(code_span, tools)))
    schema = agent.output_schema
    if schema is not None:
        lines.append("output_schema: " + _schema_shape(plain_value(schema.value)))
    head = agent.system_prompt_head
    if head is not None:
        lines.append("\n".join("> " + line for line in head.splitlines()) or ">")
    if not agent.valid:
        lines.append("⚠ the file is not a valid agent (its own diagnostics say why)")
    lines.append(f"defined in {code_span(agent.path)}")
    return "\n\n".join(lines)


def _schema_shape(schema: object) -> str:
    """`object` with its properties' names, or the schema's `type`: a glance, not the schema."""
    if not isinstance(schema, dict):
        return "not a schema"
    kind = schema.get("type")
    shape = code_span(kind) if isinstance(kind, str) else "a schema"
    properties = schema.get("properties")
    if isinstance(properties, dict) and properties:
        names = [code_span(str(name)) for name in list(properties)[:MAX_SCHEMA_PROPERTIES]]
        more = len(properties) - len(names)
        shape += " with " + ", ".join(names) + (f" and {more} more" if more > 0 else "")
    return shape


def describe_spec(spec: Spec | None) -> str:
    """What a value must be, in a few words (`one of: linear, exponential`, `integer ≥ 1`)."""
    if isinstance(spec, Text):
        if spec.enum:
            return f"one of: {', '.join(spec.enum)}"
        return "non-empty string" if spec.nonempty else "string"
    if isinstance(spec, Number):
        kind = "integer" if spec.integer else "number"
        if spec.exclusive_minimum is not None:
            return f"{kind} > {spec.exclusive_minimum:g}"
        if spec.minimum is not None and spec.maximum is not None:
            return f"{kind} {spec.minimum:g}–{spec.maximum:g}"
        return f"{kind} ≥ {spec.minimum:g}" if spec.minimum is not None else kind
    if isinstance(spec, Boolean):
        return "true or false"
    if isinstance(spec, Seq):
        at_least = " (at least one)" if spec.min_items else ""
        return f"list of {describe_spec(spec.item)}{at_least}"
    if isinstance(spec, Obj | MapOf | Tagged | IfKey):
        return "mapping"
    return "any value"


def key_doc(root: YNode | None, offset: int, schema: Spec = ROOT
            ) -> tuple[str, tuple[int, int]] | None:
    """Markdown for the schema key under `offset` (its one-line doc and what its value must be),
    and the key's span, in a document described by `schema`."""
    place = spec_at(root, offset, schema)
    if place is None or place.key is None or place.owner is None or place.spec is None:
        return None
    form = form_of(place.owner, place.mapping)
    required = form is not None and place.key in form.required
    text = (f"**`{place.key}`** ({describe_spec(place.spec)}"
            f"{', required' if required else ''})")
    if place.spec.doc:
        text += f" · {place.spec.doc}"
    return text, (place.node.start, place.node.end)


def _value_at(node: YNode | None, offset: int, key: str) -> YScalar | None:
    """The scalar value of a `key` entry whose span holds `offset`, anywhere under `node`."""
    while node is not None:
        inner: YNode | None = None
        if isinstance(node, YMapping):
            for entry in node.entries:
                if entry.value.start <= offset <= entry.value.end:
                    if entry.key.text == key and isinstance(entry.value, YScalar):
                        return entry.value
                    inner = entry.value
                    break
        elif isinstance(node, YSequence):
            inner = next((item for item in node.items if item.start <= offset <= item.end), None)
        node = inner
    return None


def model_doc(root: YNode | None, offset: int) -> tuple[str, tuple[int, int]] | None:
    scalar = _value_at(root, offset, "model")
    found = model(scalar.text) if scalar is not None and isinstance(scalar.value, str) else None
    if scalar is None or found is None:
        return None
    return describe(found), (scalar.start, scalar.end)
