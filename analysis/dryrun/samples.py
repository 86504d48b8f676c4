"""The samples a dry run uses: which file, what it holds, and the values that stand in for what
nobody supplied.

Contract:
- `find_samples(workflow_path, explicit)` picks the samples: an explicit file if given, else a
  sidecar `<stem>.samples.json` (then `.yaml`, `.yml`) next to the workflow, where `<stem>` is the
  file name without `.relavium.yaml|yml` (or `.yaml|yml`), else none (synthesized). It raises
  `SampleScopeError` for a missing explicit file or an unreadable/invalid samples file.
- A samples file holds `inputs`, `ctx`, `outputs` (by node id), optional `branches` (a merge's
  array, overriding the fan-in order) and `nodes: {<id>: {inputs, ctx, outputs, branches}}`
  per-node overrides (`Samples.for_node`), and `notes` (strings, ignored: the starter sidecar
  explains itself there); `run: {outputs}` is accepted for `outputs` (the `eval` scope-file
  shape).
- Missing values are synthesized: a typed placeholder for a required input (`sample_input`), a
  skeleton of an agent's `output_schema`, a gate's approval (`synthesized`).
- A samples file over `SAMPLES_MAX_BYTES` is refused unread past the cap, as is a number
  Python cannot read (over 4,300 digits); both are `SampleScopeError`s naming the file.
- `write_sidecar` creates the starter sidecar (its text: `analysis.dryrun.skeleton`) safely.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.diagnostics import Severity
from analysis.document.model import FileAgent, InputDecl, NodeDef, Workflow
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YamlDocument, plain_value
from analysis.document.yaml_profile import MAX_SOURCE_BYTES
from analysis.document.yaml_read import read_yaml
from analysis.project.kinds import SIDECAR_SUFFIXES
from analysis.project.new_files import CreateRefused, create_new_file
from analysis.schema.output_schema import compile_output_schema
from analysis.types.examples import FORMAT_EXAMPLES, example_of
from analysis.types.inputs import input_field
from analysis.types.membership import admits

WORKFLOW_SUFFIXES = (".relavium.yaml", ".relavium.yml", ".yaml", ".yml")


SAMPLE_KEYS = ("inputs", "ctx", "outputs", "branches", "nodes", "notes")


# What a dry run can use of a samples file is bounded by the engine's 4 MiB workflow state (the
# inputs and every pinned output are node outputs it counts); twice that leaves room for
# indentation and per-node overrides. Reading one costs about thirty times its size in memory.
SAMPLES_MAX_BYTES = 8 * 1024 * 1024


# The nodes a dry run takes from the samples' `outputs`; it computes the others.
PINNED_TYPES = frozenset({"agent", "human_gate"})


# What the engine stores for an approved gate (engine.ts resume: `{decision}` without a payload).
GATE_APPROVAL = {"decision": "approved"}
# What it stores for a gate answered with a null input (engine.ts resume: `payload ?? {decision}`).
GATE_INPUT_PROVIDED = {"decision": "input_provided"}


NODE_KEYS = ("inputs", "ctx", "outputs", "branches")


# Placeholders for a required input nobody supplied, by declared type.
PLACEHOLDERS: dict[str, Any] = {
    "string": "",
    "number": 0,
    "boolean": False,
    "file_path": "",
    "code_diff": "",
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
            self.nodes,
        )


SYNTHESIZED = Samples("synthesized", None)


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
        with path.open("rb") as handle:
            data = handle.read(SAMPLES_MAX_BYTES + 1)
        if len(data) > SAMPLES_MAX_BYTES:
            raise SampleScopeError(
                f"sample scope {path}: larger than {SAMPLES_MAX_BYTES:,} bytes (8 MiB), more "
                "than a dry run can use (a run keeps at most 4 MiB of node outputs); keep the "
                "inputs and pins you need"
            )
        text = data.decode("utf-8")
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
    except ValueError:  # Python's integer-digits limit, the one other refusal of json.loads
        raise SampleScopeError(
            f"sample scope {path}: a number has more than {sys.get_int_max_str_digits():,} "
            "digits, more than a dry run reads (JavaScript would read it as a rounded or "
            "infinite number); shorten it or write it as a string"
        ) from None


def _parse_yaml(text: str, path: str) -> Any:
    if len(text) > MAX_SOURCE_BYTES or len(text.encode("utf-8")) > MAX_SOURCE_BYTES:
        # the YAML reader's own refusal speaks of workflow sources
        raise SampleScopeError(
            f"sample scope {path}: a YAML samples file is read as a workflow is, at most "
            f"{MAX_SOURCE_BYTES:,} bytes (2 MiB); write a larger one as JSON"
        )
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
        # a value the engine's admission takes: of the declared format, else long enough
        if validation.get("format") in FORMAT_EXAMPLES:
            return FORMAT_EXAMPLES[validation["format"]]
        shortest = validation.get("min_length")
        if isinstance(shortest, int) and not isinstance(shortest, bool) and 0 < shortest <= 64:
            return "x" * shortest
    return PLACEHOLDERS.get(decl.type or "", "")


def context_input_reads(workflow: Workflow) -> set[str]:
    """The inputs the workflow's `context:` reads: the engine resolves the context when the run
    starts and fails the run on an omitted one (engine.ts `#resolveContextOrFail`)."""
    return {ref.name for entry in workflow.context if entry.value is not None
            for ref in entry.value.references if ref.kind == "inputs" and ref.name is not None}


def synthesized_output(workflow: Workflow, node: NodeDef, file_agent: FileAgent | None = None
                       ) -> Any:
    """A value of the `output_schema` the node's output is held to (an agent node's own, else
    its agent's: `node.output_schema ?? agent.output_schema`, the agent inline or, with
    `file_agent` (`AnalysisResult.file_agent`), in an agent file), made by the one generator of
    example values (`analysis.types.examples`) from the type the schema compiles to, so it
    passes the engine's validation as a real answer must; None when there is none."""
    entry = workflow.output_schema_of(node, file_agent)
    value_type = compile_output_schema(entry.value).value_type if entry is not None else None
    return example_of(value_type) if value_type is not None else None


def pin_mismatch(workflow: Workflow, node: NodeDef, pinned: Any,
                 file_agent: FileAgent | None = None) -> str | None:
    """A note when an agent's pinned output is not a value of the `output_schema` it is held
    to: the engine validates a model's parsed answer against it and fails the node on a miss
    (`validation`, not retried: ADR-0092 §4), so a run that got this answer would stop there.
    Names the node and the schema, never the value."""
    entry = workflow.output_schema_of(node, file_agent) if node.type == "agent" else None
    value_type = compile_output_schema(entry.value).value_type if entry is not None else None
    if value_type is None or admits(value_type, pinned):
        return None
    return (f"sample output `{node.id}` is not a value of the output_schema `{node.id}` is "
            "held to: the engine would fail the node (validation, ADR-0092 §4) on that answer; "
            "this dry run uses it as given")


def synthesized(workflow: Workflow, node: NodeDef, file_agent: FileAgent | None = None) -> Any:
    """What a dry run uses for an agent or gate without a pin: the engine's shapes — a gate's
    approval, a skeleton of the agent node's `output_schema` (or its agent's), else text (an
    agent without a schema answers text)."""
    if node.type == "human_gate":
        return dict(GATE_APPROVAL)
    if workflow.output_schema_of(node, file_agent) is not None:
        return synthesized_output(workflow, node, file_agent)
    return f"(sample text from {node.id})"


def write_sidecar(workflow_path: Path, text: str, roots: Iterable[Path]) -> Path:
    """Create the workflow's sidecar `<stem>.samples.json` holding `text`; returns its path.

    Inside one of `roots` (the workspace folders; the workflow's own folder when there are
    none), never through a symbolic link, never over anything that exists
    (`analysis.project.new_files.create_new_file`). Raises `SampleScopeError` naming the file."""
    target = sidecar_path(workflow_path)
    try:
        return create_new_file(target.parent, (), target.name, text, roots,
                               "remove it or write the samples file yourself")
    except CreateRefused as refused:
        raise SampleScopeError(str(refused)) from None

