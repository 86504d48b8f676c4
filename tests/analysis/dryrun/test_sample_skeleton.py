"""The starter sidecar `relavium.createSampleScope` writes (`analysis.dryrun.skeleton`): every
input, context key and stored output, in declaration order, from the same synthesis a dry run
uses; and a dry run of the file as written reproduces it."""

from __future__ import annotations

import json
from typing import Any

from analysis.checks.analyze import analyze
from analysis.dryrun.runner import run_workflow
from analysis.dryrun.samples import parse_samples
from analysis.dryrun.skeleton import HOW_IT_IS_USED, sidecar_skeleton
from sandbox import Outcome, Scope, evaluate
from tests.conftest import EXAMPLES
from tests.operations import lines_executed


def in_process(source: str, kind: str, scope: Scope) -> Outcome:
    return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]


SKELETON = """\
schema_version: '1.0'
workflow:
  id: skeleton
  inputs:
    - { name: tier, type: string, validation: { enum: [gold, silver] } }
    - { name: token, type: secret }
    - { name: unread, type: secret }
    - { name: floor, type: number, validation: { min: 2 } }
    - { name: name, type: string, default: Ada }
  context:
    - { key: team, value: eu }
    - { key: auth, value: 'Bearer {{ inputs.token }}' }
    - { key: greeting, value: 'Hi {{ inputs.name }} ({{ inputs.tier }})' }
    - { key: file, value: '{{ inputs.name | read_file }}' }
    - { key: region, value: west }
  agents:
    - { id: w, model: claude-sonnet-4, provider: anthropic, system_prompt: x }
  nodes:
    - { id: start, type: input }
    - { id: zeta, type: agent, agent_ref: w, prompt_template: hi }
    - id: route
      type: condition
      expression: 'inputs.floor > 1 ? "big" : "small"'
      branches:
        - { when: big, target_node: fan }
      default: small
    - { id: fan, type: parallel, parallel_of: [calc, upper] }
    - { id: calc, type: transform, transform: 'inputs.floor * 10' }
    - { id: upper, type: transform, transform: 'ctx.greeting.toUpperCase()' }
    - { id: join, type: merge, merge_strategy: concat }
    - id: alpha
      type: agent
      agent_ref: w
      prompt_template: 'score {{ run.outputs.join | json }}'
      output_schema: { type: object, properties: { score: { type: integer } } }
    - { id: small, type: transform, transform: '0' }
    - { id: gate, type: human_gate, gate_type: approval, message_template: ok }
    - { id: done, type: output }
  edges:
    - { from: start, to: zeta }
    - { from: zeta, to: route }
    - { from: calc, to: join }
    - { from: upper, to: join }
    - { from: join, to: alpha }
    - { from: alpha, to: gate }
    - { from: gate, to: done }
"""


def skeleton_of(text: str) -> tuple[dict[str, Any], list[str]]:
    result = analyze(text)
    assert result.workflow is not None and result.graph is not None
    made = sidecar_skeleton(result.workflow, result.graph, in_process)
    written = json.loads(made.text)
    assert written["notes"] == made.notes
    return written, made.notes


def test_every_input_in_declaration_order_secrets_only_noted() -> None:
    skeleton, notes = skeleton_of(SKELETON)
    # a value of each declared shape (enum's first, min, default); a secret only as a
    # placeholder, when the context reads it: the engine resolves the context at run start and
    # fails the run on an omitted input (engine.ts #resolveContextOrFail, resolve.ts
    # resolveContext, HodeTech/Relavium 839f2bd)
    assert list(skeleton["inputs"].items()) == [
        ("tier", "gold"), ("token", "placeholder-not-a-secret"), ("floor", 2), ("name", "Ada")
    ]
    assert notes[:4] == [
        'input `tier` has no default: "gold" is a value of its declared shape; give a '
        "realistic one",
        "input `token` is secret: a placeholder is written because the context reads it and a "
        "run without it fails when it starts (a dry run never reads its value; never put a real "
        "secret here)",
        "input `unread` is secret: not written (a dry run never reads its value: reading it "
        "fails with secret_context; keep secrets out of samples files)",
        "input `floor` has no default: 2 is a value of its declared shape; give a realistic one",
    ]


def test_every_context_key_templates_resolved_from_the_sample_inputs() -> None:
    skeleton, notes = skeleton_of(SKELETON)
    assert list(skeleton["ctx"].items()) == [
        ("team", "eu"),
        ("greeting", "Hi Ada (gold)"),  # what the engine resolves from the inputs written above
        ("file", "{{ inputs.name | read_file }}"),  # a filter a dry run cannot apply: as written
        ("region", "west"),
    ]
    ctx_notes = [note for note in notes if note.startswith("ctx ")]
    assert ctx_notes == [
        "ctx `auth` is derived from a secret input: not written (a dry run never reads it)",
        "ctx `greeting` is the template `Hi {{ inputs.name }} ({{ inputs.tier }})` resolved "
        "from the sample inputs; a value here replaces the template, so delete the entry to "
        "have it follow `inputs` again",
        "ctx `file` is the template `{{ inputs.name | read_file }}` resolved from the sample "
        "inputs; a value here replaces the template, so delete the entry to have it follow "
        "`inputs` again",
        "ctx `file`: `{{ inputs.name | read_file }}` is not resolved in a sample scope; give its "
        "value under `ctx` in the samples",
    ]


def test_every_stored_output_in_declaration_order_as_the_dry_run_computed_it() -> None:
    skeleton, notes = skeleton_of(SKELETON)
    assert list(skeleton["outputs"].items()) == [
        ("zeta", "(sample text from zeta)"),  # an agent without a schema answers text
        ("fan", None),  # the engine's parallel stores null
        ("calc", 20),  # computed, not invented
        ("upper", "HI ADA (GOLD)"),
        ("join", [20, "HI ADA (GOLD)"]),
        ("alpha", {"score": 0}),  # an output_schema skeleton
        ("gate", {"decision": "approved"}),
        ("done", {"decision": "approved"}),  # the output captured its one live feeder verbatim
    ]
    output_notes = [note for note in notes[:-1] if note.startswith("`")]
    assert output_notes == [
        "`start` (input) stores the inputs above, secrets masked; not repeated",
        "`route` (condition) stores no output in the engine (`run.outputs` has no `route`); "
        "nothing to write",
        '`small` (transform) skipped in the dry run (route chose "fan"); nothing to write',
    ]
    assert notes[-1] == HOW_IT_IS_USED


def test_a_dry_run_of_the_skeleton_as_written_reproduces_it_without_notes() -> None:
    result = analyze(SKELETON)
    assert result.workflow is not None and result.graph is not None
    skeleton, _ = skeleton_of(SKELETON)
    samples = parse_samples(json.dumps(skeleton), "s.json", "sidecar", is_json=True)
    run = run_workflow(result.workflow, result.graph, in_process, samples)
    stored = {entry.id: entry.to_json().get("value") for entry in run.nodes}
    assert {node: stored[node] for node in skeleton["outputs"]} == skeleton["outputs"]
    # the pinned agents are pinned; the computed entries match, so nothing is stale
    assert [entry.status for entry in run.nodes if entry.id in ("zeta", "alpha")] == [
        "pinned", "pinned"
    ]
    assert not any("differ from this dry run" in note for note in run.notes)
    assert not any("ran with the samples" in note for note in run.notes)


def test_a_node_that_did_not_complete_is_noted_and_an_unrun_agent_gets_a_starter() -> None:
    text = SKELETON.replace("transform: 'inputs.floor * 10'", "transform: 'null.x'")
    skeleton, notes = skeleton_of(text)
    # calc failed, so the run ended: join and upper have nothing; agents and gates still get one
    assert list(skeleton["outputs"]) == ["zeta", "fan", "alpha", "gate"]
    assert "`calc` (transform) failed in the dry run (the expression threw an error); nothing " \
        "to write" in notes
    assert any(note.startswith("`alpha` (agent) skipped in the dry run") and
               note.endswith("its output is a starter") for note in notes)


def test_a_cycle_writes_the_pins_only() -> None:
    text = SKELETON.replace("    - { from: gate, to: done }\n",
                            "    - { from: gate, to: done }\n    - { from: alpha, to: join }\n")
    skeleton, notes = skeleton_of(text)
    assert list(skeleton["outputs"]) == ["zeta", "alpha", "gate"]
    assert ("the workflow has a dependency cycle, so it cannot run: only agent and human_gate "
            "outputs are written") in notes


def test_the_notes_are_stable_and_the_bundled_example_gets_a_valid_sidecar() -> None:
    text = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
    first, second = skeleton_of(text), skeleton_of(text)
    assert first == second
    skeleton, _ = first
    # the secret the context reads only as a placeholder, so that its run starts; the
    # secret-derived context key is never written
    assert skeleton["inputs"]["crm_token"] == "placeholder-not-a-secret"
    assert "crm_auth" not in skeleton["ctx"]
    parse_samples(json.dumps(skeleton), "s.json", "sidecar", is_json=True)


def unresolved_context(count: int) -> str:
    keys = "".join(
        f"    - {{ key: k{i}, value: 'a {{{{ run.outputs.x{i} }}}} `: {{{{ inputs.y | json }}}}' }}"
        "\n"
        for i in range(count)
    )
    return ("schema_version: '1.0'\nworkflow:\n  id: w\n  context:\n" + keys
            + "  nodes:\n    - { id: start, type: input }\n")


def test_many_context_templates_cost_linear_work() -> None:
    """Each context key's rendering notes were found by matching every note against every key:
    n keys cost n². 10x the keys: about 10x the work."""
    skeleton, notes = skeleton_of(unresolved_context(2))
    assert skeleton["ctx"]["k1"].startswith("a {{ run.outputs.x1 }}")
    assert sum(note.startswith("ctx `k1`: ") for note in notes) == 2

    def cost(count: int) -> int:
        result = analyze(unresolved_context(count))
        assert result.workflow is not None and result.graph is not None
        workflow, graph = result.workflow, result.graph
        return lines_executed(
            lambda: sidecar_skeleton(workflow, graph, in_process), "analysis/dryrun/skeleton.py"
        )

    small, large = cost(60), cost(600)
    assert large <= small * 12, (small, large)



def test_a_starter_that_would_indent_past_the_samples_cap_is_written_on_one_line() -> None:
    # 400 merges in a row: indented, the outputs (each {} inside up to 400 lists) are 44 MB,
    # over the 8 MiB a samples file may hold; the starter must read back
    from analysis.dryrun.samples import SAMPLES_MAX_BYTES
    from tests.analysis.dryrun.test_bounds import chain
    from tests.analysis.dryrun.test_workflow_run import HEAD

    result = analyze(HEAD + chain(400))
    assert result.workflow is not None and result.graph is not None
    text = sidecar_skeleton(result.workflow, result.graph, in_process).text
    assert len(text.encode("utf-8")) <= SAMPLES_MAX_BYTES and text.count("\n") == 1
    samples = parse_samples(text, "starter.json", "sidecar", is_json=True)
    assert samples.outputs["m0"] == [{}]
