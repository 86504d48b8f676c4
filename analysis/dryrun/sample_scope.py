"""The sample scope for "run with sample scope": which samples to use, and the scope the engine
would hand one node's expression.

Contract:
- `find_samples(workflow_path, explicit)` picks the samples: an explicit file if given, else a
  sidecar `<stem>.samples.json` (then `.yaml`, `.yml`) next to the workflow, where `<stem>` is the
  file name without `.relavium.yaml|yml` (or `.yaml|yml`), else none (synthesized). It raises
  `SampleScopeError` for a missing explicit file or an unreadable/invalid samples file.
- A samples file holds `inputs`, `ctx`, `outputs` (by node id), optional `branches` (a merge's
  array, overriding the fan-in order) and `nodes: {<id>: {inputs, ctx, outputs, branches}}`
  per-node overrides, and `notes` (strings, ignored: the starter sidecar explains itself there);
  `run: {outputs}` is accepted for `outputs` (the `eval` scope-file shape).
- `build_sample_scope(workflow, graph, node_id, samples)` builds the scope exactly as the engine
  does: inputs as supplied then declared defaults (a supplied declared secret becomes a denied
  key whose value never leaves this function; an omitted optional one stays absent); `ctx` in
  declaration order with secret-derived keys denied; `run.outputs` narrowed to the node's
  ancestors, keys sorted; `branches` (merge only) in the fan-in order of the spec. Missing
  values are synthesized (input defaults or a typed placeholder, static context values, a
  skeleton of an agent's `output_schema`), each noted in `notes`.
- `SampleScope.scope` has the `eval --scope` shape: `{"inputs", "ctx", "run": {"outputs"},
  "branches", "secret_inputs", "secret_ctx"}` (denied keys hold None).
- `write_sidecar` creates the starter sidecar (its text: `analysis.dryrun.skeleton`) safely.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.diagnostics import Severity
from analysis.document.graph import CONTROL_TYPES, Graph
from analysis.document.model import ExpressionField, InputDecl, NodeDef, Workflow
from analysis.document.source import SourceText
from analysis.document.templates import TemplateRef
from analysis.document.yaml_nodes import YamlDocument, plain_value
from analysis.document.yaml_read import read_yaml
from analysis.project.files import SIDECAR_SUFFIXES

WORKFLOW_SUFFIXES = (".relavium.yaml", ".relavium.yml", ".yaml", ".yml")
SAMPLE_KEYS = ("inputs", "ctx", "outputs", "branches", "nodes", "notes")
# The nodes a dry run takes from the samples' `outputs`; it computes the others.
PINNED_TYPES = frozenset({"agent", "human_gate"})
# What the engine stores for an approved gate (engine.ts resume: `{decision}` without a payload).
GATE_APPROVAL = {"decision": "approved"}
NODE_KEYS = ("inputs", "ctx", "outputs", "branches")
# Placeholders for a required input nobody supplied, by declared type.
PLACEHOLDERS: dict[str, Any] = {
    "string": "",
    "number": 0,
    "boolean": False,
    "file_path": "",
    "code_diff": "",
}
SCHEMA_PLACEHOLDERS: dict[str, Any] = {
    "string": "",
    "number": 0,
    "integer": 0,
    "boolean": False,
    "array": [],
    "null": None,
}


class SampleScopeError(ValueError):
    """A samples file or node that cannot give a scope; the message says what to do."""


@dataclass(frozen=True)
class Samples:
    origin: str  # "explicit" | "sidecar" | "synthesized"
    path: str | None
    inputs: dict[str, Any] = field(default_factory=dict)
    ctx: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    branches: list[Any] | None = None
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)

    def for_node(self, node_id: str) -> Samples:
        """These samples with the node's own overrides laid over them (a part the node does
        not override is shared, not copied: a dry run asks this of every overridden node)."""
        override = self.nodes.get(node_id)
        if not override:
            return self

        def laid_over(part: dict[str, Any], key: str) -> dict[str, Any]:
            return {**part, **override[key]} if override.get(key) else part

        return Samples(
            self.origin,
            self.path,
            laid_over(self.inputs, "inputs"),
            laid_over(self.ctx, "ctx"),
            laid_over(self.outputs, "outputs"),
            override.get("branches", self.branches),
        )


SYNTHESIZED = Samples("synthesized", None)


@dataclass
class SampleScope:
    node: str
    kind: str  # the sandbox kind: condition | transform | merge
    source: str  # the expression's text
    scope: dict[str, Any]
    origin: str
    path: str | None
    notes: list[str] = field(default_factory=list)
    # shown if the evaluation fails: a synthesized ancestor output it read, and how to pin one
    failure_hint: str | None = None
    # the expression's field, to place a failure in the document
    field: ExpressionField | None = None


def workflow_stem(workflow_path: Path) -> str:
    name = workflow_path.name
    for suffix in WORKFLOW_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return workflow_path.stem


def sidecar_path(workflow_path: Path, suffix: str = SIDECAR_SUFFIXES[0]) -> Path:
    return workflow_path.with_name(workflow_stem(workflow_path) + suffix)


def find_samples(workflow_path: str | None, explicit: str | None = None) -> Samples:
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise SampleScopeError(
                f"sample scope {explicit}: no such file; pass an existing JSON or YAML file"
            )
        return load_samples(path, "explicit")
    sidecar = existing_sidecar(Path(workflow_path)) if workflow_path is not None else None
    return load_samples(sidecar, "sidecar") if sidecar is not None else SYNTHESIZED


def existing_sidecar(workflow_path: Path) -> Path | None:
    for suffix in SIDECAR_SUFFIXES:
        candidate = sidecar_path(workflow_path, suffix)
        if candidate.is_file():
            return candidate
    return None


def load_samples(path: Path, origin: str) -> Samples:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SampleScopeError(f"sample scope {path}: cannot read it ({error})") from error
    return parse_samples(text, str(path), origin, is_json=path.suffix.lower() == ".json")


def parse_samples(text: str, path: str, origin: str, *, is_json: bool) -> Samples:
    try:
        raw = _parse_json(text, path) if is_json else _parse_yaml(text, path)
    except RecursionError:
        # The sandbox refuses anything this deep anyway; say so instead of crashing the caller.
        raise SampleScopeError(
            f"sample scope {path}: nested too deeply to read; flatten it"
        ) from None
    if not isinstance(raw, dict):
        raise SampleScopeError(
            f"sample scope {path}: expected an object with {', '.join(SAMPLE_KEYS)}"
        )
    raw = dict(raw)
    run = raw.pop("run", None)
    if run is not None:
        if not isinstance(run, dict) or set(run) - {"outputs"} or "outputs" in raw:
            raise SampleScopeError(
                f"sample scope {path}: `run` may only hold `outputs` (and not next to a "
                "top-level `outputs`); put node outputs under `outputs`"
            )
        raw["outputs"] = run["outputs"]
    for key in raw:
        if key not in SAMPLE_KEYS:
            hint = (" (the workflow declares which inputs and context entries are secret)"
                    if key in ("secret_inputs", "secret_ctx") else "")
            raise SampleScopeError(
                f"sample scope {path}: unknown key `{key}`{hint}; "
                f"allowed: {', '.join(SAMPLE_KEYS)}"
            )
    nodes = _object(raw.get("nodes"), f"{path}: nodes")
    for node_id, override in nodes.items():
        for key in _object(override, f"{path}: nodes.{node_id}"):
            if key not in NODE_KEYS:
                raise SampleScopeError(
                    f"sample scope {path}: unknown key `nodes.{node_id}.{key}`; "
                    f"allowed: {', '.join(NODE_KEYS)}"
                )
        for key in ("inputs", "ctx", "outputs"):
            _object(override.get(key), f"{path}: nodes.{node_id}.{key}")
        _array(override.get("branches"), f"{path}: nodes.{node_id}.branches")
    notes = raw.get("notes")
    if notes is not None and not (
        isinstance(notes, list) and all(isinstance(note, str) for note in notes)
    ):
        raise SampleScopeError(
            f"sample scope {path}: notes must be an array of strings (a dry run ignores them)"
        )
    return Samples(
        origin,
        path,
        _object(raw.get("inputs"), f"{path}: inputs"),
        _object(raw.get("ctx"), f"{path}: ctx"),
        _object(raw.get("outputs"), f"{path}: outputs"),
        _array(raw.get("branches"), f"{path}: branches"),
        nodes,
    )


def _parse_json(text: str, path: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SampleScopeError(
            f"sample scope {path}:{error.lineno}:{error.colno}: invalid JSON ({error.msg})"
        ) from error


def _parse_yaml(text: str, path: str) -> Any:
    document: YamlDocument = read_yaml(SourceText(text))
    errors = [problem for problem in document.problems if problem.severity is Severity.ERROR]
    if errors:
        problem = errors[0]
        start = problem.range.start
        raise SampleScopeError(
            f"sample scope {path}:{start.line + 1}:{start.character + 1}: {problem.message}"
        )
    return None if document.root is None else plain_value(document.root)


def _object(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SampleScopeError(f"sample scope {where} must be an object keyed by name")
    return value


def _array(value: Any, where: str) -> list[Any] | None:
    if value is not None and not isinstance(value, list):
        raise SampleScopeError(f"sample scope {where} must be an array of branch outputs")
    return value


@dataclass(frozen=True)
class Upstream:
    """What a dry run of the node's ancestors stored: `outputs` as `run.outputs` shows them (a
    condition's absent), `branches` as a merge's fan-in gives them, `notes` on what happened."""

    outputs: dict[str, Any]
    branches: list[Any]
    notes: list[str] = field(default_factory=list)


def build_sample_scope(
    workflow: Workflow,
    graph: Graph,
    node_id: str,
    samples: Samples = SYNTHESIZED,
    upstream: Upstream | None = None,
) -> SampleScope:
    node = workflow.node(node_id)
    if node is None:
        runnable = ", ".join(n.id for n in workflow.nodes if n.expression and n.id) or "none"
        raise SampleScopeError(
            f"no node with id `{node_id}`; nodes with an expression: {runnable}"
        )
    if node.expression is None:
        raise SampleScopeError(
            f"node `{node_id}` (type {node.type}) has no expression to run; choose a condition "
            "(expression), transform (transform) or custom merge (merge_fn) node"
        )
    own_outputs = samples.nodes.get(node_id, {}).get("outputs", {})
    samples = samples.for_node(node_id)
    notes: list[str] = []
    inputs, secret_inputs, ctx, secret_ctx = base_scope(workflow, graph, samples, notes)
    ancestors = frozenset(graph.ancestors(node_id) - {node_id})
    if upstream is None:
        outputs = _outputs(workflow, ancestors, samples, notes)
    else:
        outputs = {**upstream.outputs, **own_outputs}
        notes.extend(upstream.notes)
    scope: dict[str, Any] = {
        "inputs": inputs,
        "ctx": ctx,
        "run": {"outputs": {key: outputs[key] for key in sorted(outputs)}},
        "secret_inputs": secret_inputs,
        "secret_ctx": secret_ctx,
    }
    if node.type == "merge":
        if samples.branches is not None:
            scope["branches"] = samples.branches
        elif upstream is not None:
            scope["branches"] = upstream.branches
        else:
            scope["branches"] = [
                outputs[branch] for branch in graph.fan_in_branches(node_id) if branch in outputs
            ]
    return SampleScope(
        node_id, node.expression.kind, node.expression.value, scope, samples.origin,
        samples.path, notes, field=node.expression,
    )


def base_scope(
    workflow: Workflow, graph: Graph, samples: Samples, notes: list[str]
) -> tuple[dict[str, Any], list[str], dict[str, Any], list[str]]:
    """(inputs, secret inputs, ctx, secret ctx) as every node of a run sees them."""
    inputs, secret_inputs = _inputs(workflow, graph, samples, notes)
    ctx, secret_ctx = _context(workflow, graph, inputs, samples, notes)
    return inputs, secret_inputs, ctx, secret_ctx


def _inputs(
    workflow: Workflow, graph: Graph, samples: Samples, notes: list[str]
) -> tuple[dict[str, Any], list[str]]:
    declared = {decl.name: decl for decl in workflow.inputs if decl.name is not None}
    inputs: dict[str, Any] = {}
    for name, value in samples.inputs.items():
        if name in declared:
            inputs[name] = value
        else:
            notes.append(f"sample input `{name}` is not declared by the workflow; left out")
    for name, decl in declared.items():
        if name in inputs:
            continue
        default = input_field(decl, "default")
        required = input_field(decl, "required") is True
        if default is not None:
            inputs[name] = default
        elif decl.secret:
            if required:
                inputs[name] = None
        elif required:
            # an omitted optional input stays absent, as in a real run (`?? fallback` applies)
            inputs[name] = sample_input(decl)
            notes.append(f"required input `{name}` has no sample value; using {inputs[name]!r}")
    secret = [name for name in inputs if name in graph.secret_inputs]
    for name in secret:
        inputs[name] = None  # the value never reaches the sandbox; reading it is denied
    return inputs, secret


def sample_input(decl: InputDecl) -> Any:
    """A value of the input's declared shape: its first `enum` value, its `min`, else a typed
    placeholder."""
    validation = input_field(decl, "validation")
    if isinstance(validation, dict):
        enum = validation.get("enum")
        if isinstance(enum, list) and enum:
            return enum[0]
        if isinstance(validation.get("min"), int | float) and decl.type == "number":
            return validation["min"]
    return PLACEHOLDERS.get(decl.type or "", "")


def input_field(decl: InputDecl, name: str) -> Any:
    """The plain value of an input declaration's field, or None."""
    entry = decl.mapping.get(name)
    return plain_value(entry.value) if entry else None


def _context(
    workflow: Workflow, graph: Graph, inputs: dict[str, Any], samples: Samples, notes: list[str]
) -> tuple[dict[str, Any], list[str]]:
    ctx: dict[str, Any] = {}
    denied: list[str] = []
    for entry in workflow.context:
        key = entry.key
        if key is None or key in ctx:
            continue
        if key in graph.secret_context:
            ctx[key] = None
            denied.append(key)
        elif key in samples.ctx:
            ctx[key] = samples.ctx[key]
        elif entry.value is None:
            ctx[key] = ""
        else:
            ctx[key] = _render(entry.value.value, entry.value.references, inputs, ctx, key, notes)
    for key in samples.ctx:
        if key not in ctx:
            notes.append(f"sample ctx `{key}` is not declared by the workflow; left out")
    return ctx, denied


def _render(
    template: str,
    references: Sequence[TemplateRef],
    inputs: dict[str, Any],
    ctx: dict[str, Any],
    key: str,
    notes: list[str],
) -> str:
    """Resolve `{{ inputs.x }}` / `{{ ctx.y }}` (with `| default(...)`); anything else stays as
    written, noted, so the user knows to give the value in the samples."""
    pieces: list[str] = []
    last = 0
    for ref in references:
        pieces.append(template[last:ref.start])
        last = ref.end
        pool = inputs if ref.kind == "inputs" else ctx if ref.kind == "ctx" else None
        filters = [f.name for f in ref.filters]
        if pool is not None and set(filters) <= {"default"} and ref.name is not None:
            value = pool.get(ref.name)
            if value is None and filters:
                value = _default_argument(template[ref.start:ref.end])
            pieces.append(value if isinstance(value, str) else json.dumps(value))
        else:
            pieces.append(template[ref.start:ref.end])
            notes.append(
                f"ctx `{key}`: `{template[ref.start:ref.end]}` is not resolved in a sample "
                "scope; give its value under `ctx` in the samples"
            )
    pieces.append(template[last:])
    return "".join(pieces)


def _default_argument(reference: str) -> str:
    _, _, rest = reference.partition("default(")
    quote = rest[:1]
    return rest[1:].partition(quote)[0] if quote in ("'", '"') else ""


def _outputs(
    workflow: Workflow, ancestors: frozenset[str], samples: Samples, notes: list[str]
) -> dict[str, Any]:
    outputs: dict[str, Any] = {}
    for node_id in ancestors:
        if node_id in samples.outputs:
            outputs[node_id] = samples.outputs[node_id]
        elif samples.origin == "synthesized":
            node = workflow.node(node_id)
            if node is not None and node.type not in CONTROL_TYPES:
                outputs[node_id] = synthesized_output(node)
        else:
            notes.append(
                f"ancestor `{node_id}` has no sample output; it is absent, as a skipped node's is"
            )
    return outputs


def synthesized_output(node: NodeDef) -> Any:
    """A skeleton of the node's `output_schema`, or None when it declares none."""
    entry = node.entry("output_schema")
    return _from_schema(plain_value(entry.value)) if entry else None


def _from_schema(schema: Any, depth: int = 0) -> Any:
    if not isinstance(schema, dict) or depth > 32:
        return None
    if "default" in schema:
        return schema["default"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or (kind is None and isinstance(schema.get("properties"), dict)):
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            return {}
        return {name: _from_schema(sub, depth + 1) for name, sub in properties.items()}
    return SCHEMA_PLACEHOLDERS.get(kind) if isinstance(kind, str) else None


def synthesized(node: NodeDef) -> Any:
    """What a dry run uses for an agent or gate without a pin: the engine's shapes — a gate's
    approval, an agent's `output_schema` skeleton, else text (an agent without a schema answers
    text)."""
    if node.type == "human_gate":
        return dict(GATE_APPROVAL)
    if node.entry("output_schema") is not None:
        return synthesized_output(node)
    return f"(sample text from {node.id})"


def write_sidecar(workflow_path: Path, text: str, roots: Iterable[Path]) -> Path:
    """Create the workflow's sidecar `<stem>.samples.json` holding `text`; returns its path.

    A repository controls its own tree, so it can plant a link where the sidecar goes: the file is
    only created inside one of `roots` (the workspace folders; the workflow's own folder when
    there are none) with every link on the way resolved, never through a symbolic link (dangling
    or not), and never over anything that exists: `O_CREAT|O_EXCL|O_NOFOLLOW` relative to the
    resolved folder, so a file or link that appears after the checks is refused too. Raises
    `SampleScopeError` naming the file."""
    target = sidecar_path(workflow_path)
    folder = target.parent
    try:
        resolved = folder.resolve(strict=True)
    except (OSError, RuntimeError) as error:
        raise SampleScopeError(f"cannot write {target} ({_reason(error)})") from None
    if not within(resolved, roots):
        raise SampleScopeError(
            f"refusing to write {target}: it is outside the workspace folder(s)"
        )
    try:
        directory = os.open(resolved, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as error:
        raise SampleScopeError(f"cannot write {target} ({_reason(error)})") from None
    try:
        descriptor = os.open(
            target.name,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
            0o644,
            dir_fd=directory,
        )
    except OSError as error:
        if error.errno in (errno.EEXIST, errno.ELOOP):
            what = "a symbolic link" if target.is_symlink() else "something that already exists"
            raise SampleScopeError(
                f"refusing to write {target}: it is {what}; remove it or write the samples "
                "file yourself"
            ) from None
        raise SampleScopeError(f"cannot write {target} ({_reason(error)})") from None
    finally:
        os.close(directory)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    return target


def within(path: Path, roots: Iterable[Path]) -> bool:
    """Whether `path`, links resolved, is one of `roots` or inside one (links resolved too)."""
    real = Path(os.path.realpath(path))
    real_roots = [Path(os.path.realpath(root)) for root in roots]
    return any(real == root or root in real.parents for root in real_roots)


def _reason(error: BaseException) -> str:
    return getattr(error, "strerror", None) or str(error)

