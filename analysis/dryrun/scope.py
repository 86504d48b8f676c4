"""The scope the engine hands one node's expression, for "run with sample scope" (`run --node`,
`relavium.runWithSampleScope`) and for every expression of a whole dry run.

Contract:
- `build_sample_scope(workflow, graph, node_id, samples)` builds the scope exactly as the engine
  does: inputs as supplied then declared defaults (a supplied declared secret becomes a denied
  key whose value never leaves this function; an omitted optional one stays absent); `ctx` in
  declaration order with secret-derived keys denied; `run.outputs` narrowed to the node's
  ancestors, keys sorted; `branches` (merge only): the fan-in branches that completed, in the
  fan-in order of the spec. After a dry run of the ancestors (`Upstream`) the outputs are what
  it stored; without one (a workflow with a cycle) they are the samples', and missing ones are
  synthesized (input defaults or a typed placeholder, static context values, a skeleton of an
  agent's `output_schema`), each noted in `notes`.
- `engine_scope` is the one builder of that scope: the whole dry run builds every node's scope
  with it too.
- `SampleScope.scope` has the `eval --scope` shape: `{"inputs", "ctx", "run": {"outputs"},
  "branches", "secret_inputs", "secret_ctx"}` (denied keys hold None).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from analysis.document.graph import CONTROL_TYPES, Graph
from analysis.document.model import ExpressionField, Workflow
from analysis.document.templates import TemplateRef
from analysis.dryrun.admission import admit
from analysis.dryrun.samples import (
    SYNTHESIZED,
    Samples,
    SampleScopeError,
    context_input_reads,
    sample_input,
    synthesized_output,
)
from analysis.dryrun.templates import default_argument
from analysis.dryrun.values import UNDEFINED
from analysis.naming import Suggestions
from analysis.types.inputs import input_field


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


class BaseScope(NamedTuple):
    """The part of the scope every node of a run sees alike: the inputs (a secret one present and
    None), which are secret, the context (a secret-derived key present and None), which are."""

    inputs: dict[str, Any]
    secret_inputs: list[str]
    ctx: dict[str, Any]
    secret_ctx: list[str]


@dataclass(frozen=True)
class Upstream:
    """What a dry run of the node's ancestors `stored` (by node id; a condition's `UNDEFINED`, a
    node that did not complete absent) and `notes` on what happened."""

    stored: Mapping[str, Any]
    notes: list[str] = field(default_factory=list)


def engine_scope(
    graph: Graph,
    node_id: str,
    node_type: str | None,
    base: BaseScope,
    stored: Mapping[str, Any],
    outputs_override: Mapping[str, Any],
    branches_override: list[Any] | None,
    entering: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """The scope the engine hands the node's expression (node-handlers/scope.ts
    `buildExpressionScope`), given what each node that completed before it `stored`:
    `run.outputs` holds the node's ancestors' stored outputs but a condition's (undefined), keys
    sorted, with `outputs_override` laid over them; a merge's `branches` are its
    `completed_branches`, a condition's as null, unless `branches_override` replaces them.
    `entering(id)` is what a stored output enters the scope as (a whole run shares one
    SharedValue per output); the value itself by default."""
    enter = entering or stored.__getitem__
    ancestors = graph.ancestors(node_id)
    # walk whichever is smaller: a node with few ancestors costs little however many ran before
    if len(ancestors) < len(stored):
        keys = [key for key in ancestors if key in stored]
    else:
        keys = [key for key in stored if key in ancestors]
    outputs = {key: enter(key) for key in keys
               if key != node_id and stored[key] is not UNDEFINED}
    outputs.update(outputs_override)
    scope: dict[str, Any] = {
        "inputs": base.inputs,
        "ctx": base.ctx,
        "run": {"outputs": {key: outputs[key] for key in sorted(outputs)}},
        "secret_inputs": base.secret_inputs,
        "secret_ctx": base.secret_ctx,
    }
    if node_type == "merge":
        scope["branches"] = branches_override if branches_override is not None else [
            None if stored[branch] is UNDEFINED else enter(branch)
            for branch in completed_branches(graph, node_id, stored)
        ]
    return scope


def completed_branches(graph: Graph, merge_id: str, stored: Mapping[str, Any]) -> list[str]:
    """The merge's fan-in branches that completed (stored something, if only a condition's
    undefined), in fan-in order: the engine's `branchOutputs` (fan-in.ts) keeps the branches
    present in `runOutputs`, which holds every completed node (engine.ts `#completedOutputs`),
    and leaves out one that was skipped, failed or never ran."""
    return [branch for branch in graph.fan_in_branches(merge_id) if branch in stored]


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
    base = base_scope(workflow, graph, samples, notes)
    stored: Mapping[str, Any]
    if upstream is None:
        # the node's own outputs are already in the samples it was given
        ancestors = frozenset(graph.ancestors(node_id) - {node_id})
        stored, own_outputs = sampled_outputs(workflow, ancestors, samples, notes), {}
    else:
        stored = upstream.stored
        notes.extend(upstream.notes)
    scope = engine_scope(graph, node_id, node.type, base, stored, own_outputs, samples.branches)
    return SampleScope(
        node_id, node.expression.kind, node.expression.value, scope, samples.origin,
        samples.path, notes, field=node.expression,
    )


def base_scope(
    workflow: Workflow, graph: Graph, samples: Samples, notes: list[str]
) -> BaseScope:
    inputs, secret_inputs = _inputs(workflow, graph, samples, notes)
    ctx, secret_ctx = _context(workflow, graph, inputs, samples, notes)
    _unknown_nodes(graph, samples, notes)
    return BaseScope(inputs, secret_inputs, ctx, secret_ctx)


def _unknown_nodes(graph: Graph, samples: Samples, notes: list[str]) -> None:
    """A note for each samples entry keyed by a node id the workflow does not have (a typo pins
    nothing, silently): `outputs.<id>` and `nodes.<id>`, with the closest id."""
    known = set(graph.node_ids)
    names = Suggestions(graph.node_ids)
    for where, node_ids in (("output", samples.outputs), ("`nodes` entry", samples.nodes)):
        for node_id in node_ids:
            if node_id not in known:
                hint, _ = names.did_you_mean(node_id)
                notes.append(f"sample {where} `{node_id}` is for no node of the workflow; "
                             f"left out{hint}")


def _inputs(
    workflow: Workflow, graph: Graph, samples: Samples, notes: list[str]
) -> tuple[dict[str, Any], list[str]]:
    admit(workflow, samples)
    declared = {decl.name: decl for decl in workflow.inputs if decl.name is not None}
    inputs: dict[str, Any] = dict(samples.inputs)
    # without a samples file a dry run supplies, as the skeleton writes, a placeholder for a
    # secret the context reads: a run that omits it fails when it starts
    invented = context_input_reads(workflow) if samples.origin == "synthesized" else set()
    for name, decl in declared.items():
        if name in inputs:
            continue
        default = input_field(decl, "default")
        required = input_field(decl, "required") is True
        if default is not None:
            inputs[name] = default
        elif decl.secret:
            if required or name in invented:
                inputs[name] = None
        elif required:
            # an omitted optional input stays absent, as in a real run (`?? fallback` applies)
            inputs[name] = sample_input(decl)
            notes.append(f"required input `{name}` has no sample value; using {inputs[name]!r}")
    secret = [name for name in inputs if name in graph.secret_inputs]
    for name in secret:
        inputs[name] = None  # the value never reaches the sandbox; reading it is denied
    return inputs, secret


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
                value = default_argument(template[ref.start:ref.end])
            pieces.append(value if isinstance(value, str) else json.dumps(value))
        else:
            pieces.append(template[ref.start:ref.end])
            notes.append(
                f"ctx `{key}`: `{template[ref.start:ref.end]}` is not resolved in a sample "
                "scope; give its value under `ctx` in the samples"
            )
    pieces.append(template[last:])
    return "".join(pieces)


def sampled_outputs(
    workflow: Workflow, ancestors: frozenset[str], samples: Samples, notes: list[str]
) -> dict[str, Any]:
    """What the ancestors stored when no dry run ran them (a workflow with a cycle): an ancestor
    with a sample output completed with it; a condition, which stores no value a sample could
    give, completed (undefined: absent from `run.outputs`, null among a merge's branches); with
    synthesized samples every other node but a parallel completed with a synthesized output;
    else it is taken as skipped (absent)."""
    stored: dict[str, Any] = {}
    for node_id in ancestors:
        node = workflow.node(node_id)
        if node_id in samples.outputs:
            stored[node_id] = samples.outputs[node_id]
        elif node is not None and node.type == "condition":
            stored[node_id] = UNDEFINED
        elif samples.origin == "synthesized":
            if node is not None and node.type not in CONTROL_TYPES:
                stored[node_id] = synthesized_output(workflow, node)
        else:
            notes.append(
                f"ancestor `{node_id}` has no sample output; it is absent, as a skipped node's is"
            )
    return stored
