"""The starter samples file `relavium.createSampleScope` writes (`<stem>.samples.json`).

Contract: `sidecar_skeleton(workflow, graph, evaluate)` answers a `Skeleton` whose `text` is a
samples file (JSON indented by 2, or on one line where indented it would pass the samples file's
cap) holding, each in declaration order:
- `inputs`: every declared input — its default, else a value of its declared shape (first `enum`
  value, `min`, typed placeholder; noted); a secret one is only noted (a samples file is no place
  for a secret, and a dry run never reads one: required, it is present and denied, as synthesized),
  but one the context reads gets a placeholder: without it the engine fails the run at its start;
- `ctx`: every context key — its static value, a template over the inputs resolved from those
  sample inputs (noted: a value written here replaces the template); a secret-derived one noted;
- `outputs`: every node that stores an output in the engine, from a dry run of the workflow with
  exactly these inputs — agent and human_gate outputs synthesized (they are the pins), the
  computed nodes' values as that dry run computed them. A condition stores none, an input node
  stores the inputs above, and a computed node that did not complete has none (each noted);
- `notes`: those notes in that order, then how the file is used.

Running a dry run with the file as written reproduces its `outputs`, so a user edits only what
matters (usually the pins and the inputs).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from analysis.document.graph import Graph
from analysis.document.model import Workflow
from analysis.dryrun.results import NodeRun
from analysis.dryrun.runner import Evaluate, run_workflow
from analysis.dryrun.samples import (
    PINNED_TYPES,
    SAMPLES_MAX_BYTES,
    FileAgent,
    Samples,
    context_input_reads,
    sample_input,
    synthesized,
)
from analysis.dryrun.scope import base_scope
from analysis.dryrun.values import UNDEFINED, json_text
from analysis.types.inputs import input_field

HOW_IT_IS_USED = (
    "`outputs` of agent and human_gate nodes are pins: a dry run uses them instead of calling "
    "a model or waiting for a person; every other node is recomputed from the workflow, so its "
    "entry here is only what it computed when this file was written (a dry run notes entries "
    "that no longer match); `nodes.<id>` gives one node a scope of your own "
    "(inputs, ctx, outputs, branches)"
)


@dataclass(frozen=True)
class Skeleton:
    text: str
    notes: list[str]


# what the skeleton supplies for a secret input a run cannot start without: not a secret
PLACEHOLDER_SECRET = "placeholder-not-a-secret"


def sidecar_skeleton(
    workflow: Workflow, graph: Graph, evaluate: Evaluate,
    cancelled: Callable[[], bool] = lambda: False, file_agent: FileAgent | None = None,
) -> Skeleton:
    """`file_agent` (`AnalysisResult.file_agent`): an agent node whose agent is in an agent file
    starts from that agent's `output_schema`."""
    notes: list[str] = []
    inputs = _inputs(workflow, notes)
    samples = Samples("synthesized", None, inputs)
    ctx = _ctx(workflow, graph, samples, notes)
    outputs = _outputs(workflow, graph, samples, evaluate, cancelled, notes, file_agent)
    notes.append(HOW_IT_IS_USED)
    skeleton = {"inputs": inputs, "ctx": ctx, "outputs": outputs, "nodes": {}, "notes": notes}
    text = json_text(skeleton, ensure_ascii=False, indent=2)
    if len(text.encode("utf-8")) > SAMPLES_MAX_BYTES:
        # deeply nested outputs indent to more than a samples file may hold (a chain of 400
        # merges: 44 MB); on one line the same file is read back
        text = json_text(skeleton, ensure_ascii=False)
    return Skeleton(text + "\n", notes)


def _inputs(workflow: Workflow, notes: list[str]) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    read_by_context = context_input_reads(workflow)
    for decl in workflow.inputs:
        name = decl.name
        if name is None or name in inputs:
            continue
        default = input_field(decl, "default")
        if decl.secret and name in read_by_context:
            inputs[name] = PLACEHOLDER_SECRET
            notes.append(f"input `{name}` is secret: a placeholder is written because the "
                         "context reads it and a run without it fails when it starts (a dry "
                         "run never reads its value; never put a real secret here)")
            continue
        if decl.secret:
            notes.append(f"input `{name}` is secret: not written (a dry run never reads its "
                         "value: reading it fails with secret_context; keep secrets out of "
                         "samples files)")
            continue
        if default is not None:
            inputs[name] = default
        else:
            inputs[name] = sample_input(decl)
            notes.append(f"input `{name}` has no default: {json.dumps(inputs[name])} is a "
                         "value of its declared shape; give a realistic one")
    return inputs


def _ctx(
    workflow: Workflow, graph: Graph, samples: Samples, notes: list[str]
) -> dict[str, Any]:
    rendering: list[str] = []
    _, _, ctx, secret_ctx = base_scope(workflow, graph, samples, rendering)
    rendered = _notes_by_key(rendering, set(ctx))
    written: dict[str, Any] = {}
    for entry in workflow.context:
        key = entry.key
        if key is None or key in written or key not in ctx:
            continue
        if key in secret_ctx:
            notes.append(f"ctx `{key}` is derived from a secret input: not written (a dry run "
                         "never reads it)")
            continue
        written[key] = ctx[key]
        if entry.value is not None and entry.value.references:
            notes.append(f"ctx `{key}` is the template `{entry.value.value}` resolved from the "
                         "sample inputs; a value here replaces the template, so delete the "
                         "entry to have it follow `inputs` again")
            notes.extend(rendered.get(key, ()))
    return written


def _notes_by_key(rendering: list[str], keys: set[str]) -> dict[str, list[str]]:
    """The rendering notes of each key (`ctx `KEY`: …`, a note under every key it starts
    with), in one pass over the notes: matching every note against every key was quadratic in
    the context's size."""
    found: dict[str, list[str]] = {}
    longest = max(map(len, keys), default=0)
    for note in rendering:
        if not note.startswith("ctx `"):
            continue
        end = note.find("`:", 5, 5 + longest + 2)
        while end >= 0:
            if note[5:end] in keys:
                found.setdefault(note[5:end], []).append(note)
            end = note.find("`:", end + 1, 5 + longest + 2)
    return found


def _outputs(
    workflow: Workflow,
    graph: Graph,
    samples: Samples,
    evaluate: Evaluate,
    cancelled: Callable[[], bool],
    notes: list[str],
    file_agent: FileAgent | None,
) -> dict[str, Any]:
    runs: dict[str, NodeRun] = {}
    if graph.cycle is not None:
        notes.append("the workflow has a dependency cycle, so it cannot run: only agent and "
                     "human_gate outputs are written")
    else:
        run = run_workflow(workflow, graph, evaluate, samples, cancelled=cancelled,
                           file_agent=file_agent)
        runs = {entry.id: entry for entry in run.nodes}
    outputs: dict[str, Any] = {}
    for node in workflow.nodes:
        node_id = node.id
        if node_id is None or node_id in outputs:
            continue
        entry = runs.get(node_id)
        if node.type == "condition":
            notes.append(f"`{node_id}` (condition) stores no output in the engine "
                         f"(`run.outputs` has no `{node_id}`); nothing to write")
        elif node.type == "input":
            notes.append(f"`{node_id}` (input) stores the inputs above, secrets masked; "
                         "not repeated")
        elif node.type in PINNED_TYPES:
            outputs[node_id] = synthesized(workflow, node, file_agent)
            if entry is not None and entry.status not in ("synthesized", "pinned"):
                notes.append(f"`{node_id}` ({node.type}) {entry.status} in the dry run "
                             f"({_why(entry.reason, entry.error)}); its output is a starter")
        elif entry is not None and entry.value is not UNDEFINED:
            outputs[node_id] = entry.value
        elif entry is not None:
            said = "completed without a value" if entry.status == "ran" else entry.status
            notes.append(f"`{node_id}` ({node.type}) {said} in the dry run"
                         f"{_because(entry.reason, entry.error)}; nothing to write")
    return outputs


def _why(reason: str | None, error: dict[str, Any] | None) -> str:
    if error is not None:
        return str(error.get("message"))
    return reason or "no reason given"


def _because(reason: str | None, error: dict[str, Any] | None) -> str:
    return f" ({_why(reason, error)})" if reason or error else ""
