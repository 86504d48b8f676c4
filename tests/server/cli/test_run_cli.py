"""`relavium-lsp run FILE --node ID [--scope FILE] [--format text|json]` as a user runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.analysis.failing_workflow import FAILING_NODES
from tests.conftest import EXAMPLES

EXAMPLE = EXAMPLES / "ticket-triage.relavium.yaml"


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", "run", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def workflow(tmp_path: Path) -> Path:
    return Path(shutil.copy(EXAMPLE, tmp_path / EXAMPLE.name))


def test_json_is_the_eval_shape_plus_the_scope(workflow: Path) -> None:
    result = run_cli(workflow, "--node", "route", "--format", "json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert (answer["ok"], answer["value"], answer["node"], answer["kind"]) == (
        True,
        "normal",
        "route",
        "condition",
    )
    assert answer["scope"]["source"] == "synthesized"
    assert answer["scope"]["values"]["secret_ctx"] == ["crm_auth"]


def test_text_prints_the_value_and_names_the_scope(workflow: Path) -> None:
    sidecar = workflow.with_name("ticket-triage.samples.yaml")
    # the context reads `crm_token`: a run without it fails when it starts (resolve.ts
    # resolveContext, HodeTech/Relavium 839f2bd)
    sidecar.write_text(
        "inputs: { crm_token: placeholder }\noutputs:\n  classify: { severity: 9 }\n",
        encoding="utf-8",
    )
    result = run_cli(workflow, "--node", "route")
    assert (result.returncode, result.stdout) == (0, '"urgent"\n')
    assert f"route: sidecar scope {sidecar}" in result.stderr


def test_a_sandbox_error_exits_1(workflow: Path, tmp_path: Path) -> None:
    scope = tmp_path / "scope.json"
    scope.write_text(json.dumps({"inputs": {"crm_token": "hunter2"}}), encoding="utf-8")
    text = workflow.read_text(encoding="utf-8").replace(
        "Object.assign({}, ...branches, { team: ctx.team })", "inputs.crm_token"
    )
    workflow.write_text(text, encoding="utf-8")
    result = run_cli(workflow, "--node", "combine", "--scope", scope, "--format", "json")
    assert result.returncode == 1
    answer = json.loads(result.stdout)
    assert answer["error"]["reason"] == "secret_context"
    assert answer["scope"]["source"] == "explicit"
    assert "hunter2" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--node", "nope"], "no node with id `nope`"),
        (["--node", "route", "--scope", "missing.json"], "no such file"),
        (["--node", "start"], "has no expression to run"),
    ],
)
def test_usage_errors_exit_2(workflow: Path, args: list[str], says: str) -> None:
    result = run_cli(workflow, *args)
    assert result.returncode == 2 and says in result.stderr and result.stdout == ""


def test_a_bad_samples_file_names_the_field(workflow: Path) -> None:
    workflow.with_name("ticket-triage.samples.json").write_text(
        '{"outputs": [1, 2]}', encoding="utf-8"
    )
    result = run_cli(workflow, "--node", "route")
    assert result.returncode == 2 and "outputs must be an object" in result.stderr


def test_broken_yaml_and_missing_files_exit_2(workflow: Path) -> None:
    workflow.write_text("schema_version: [\n", encoding="utf-8")
    result = run_cli(workflow, "--node", "route")
    assert result.returncode == 2 and "nothing to dry-run: " in result.stderr
    assert "never closed: close it (line 2)" in result.stderr
    result = run_cli(workflow.with_name("absent.relavium.yaml"), "--node", "route")
    assert result.returncode == 2 and "cannot read it" in result.stderr


def test_without_node_the_whole_workflow_runs_with_the_examples_samples() -> None:
    """The README tour: the bundled example with its bundled samples file."""
    result = run_cli(EXAMPLE, "--format", "json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["ok"] is True and isinstance(answer["notes"], list)
    nodes = {entry["id"]: entry for entry in answer["nodes"]}
    assert len(answer["nodes"]) == len(nodes) == 11
    assert set(nodes["route"]) == {"id", "type", "status", "reason", "ms"}  # no stored output
    assert nodes["route"]["reason"] == '"normal" chose "enrich"'
    assert (nodes["classify"]["status"], nodes["draft-reply"]["status"]) == ("pinned", "pinned")
    assert nodes["sentiment"]["value"] == {"mood": "upset"}  # computed from the sample ticket
    assert nodes["combine"]["value"] == {
        "topic": "billing", "tier": "pro", "mood": "upset", "team": "support-eu"
    }
    # the gate reads the topic through a node on route:urgent, so it is skipped with that
    # branch (a read of classify itself would keep it live: the leaked-branch rule)
    assert (nodes["topic"]["status"], nodes["topic"]["reason"]) == (
        "skipped", 'route chose "enrich"')
    assert nodes["escalate"]["status"] == "skipped"


def test_a_failing_node_exits_1_and_text_names_it(workflow: Path) -> None:
    broken = workflow.read_text(encoding="utf-8").replace(
        "Object.assign({}, ...branches, { team: ctx.team })", "branches[5].x"
    )
    workflow.write_text(broken, encoding="utf-8")
    result = run_cli(workflow)
    assert result.returncode == 1
    assert "combine (merge) failed: sandbox_error (runtime)" in result.stdout
    assert "note: the workflow has" not in result.stderr  # check finds nothing wrong
    assert 'draft-reply (agent) skipped: upstream "combine" failed' in result.stdout
    assert "dry run failed at combine" in result.stderr


def test_usage_and_io_errors_exit_2(tmp_path: Path) -> None:
    assert run_cli(tmp_path / "missing.relavium.yaml").returncode == 2
    cyclic = tmp_path / "loop.relavium.yaml"
    cyclic.write_text(
        "schema_version: '1.0'\nworkflow:\n  id: loop\n  nodes:\n"
        "    - { id: a, type: transform, transform: '1' }\n"
        "    - { id: b, type: transform, transform: '2' }\n"
        "  edges:\n    - { from: a, to: b }\n    - { from: b, to: a }\n",
        encoding="utf-8",
    )
    result = run_cli(cyclic)
    assert result.returncode == 2 and "cycle" in result.stderr


def test_a_node_failing_on_a_synthesized_ancestor_says_which_and_how_to_pin(
    tmp_path: Path,
) -> None:
    flow = tmp_path / "pin.relavium.yaml"
    flow.write_text(
        "schema_version: '1.0'\nworkflow:\n  id: pin\n"
        "  agents:\n"
        "    - { id: w, model: claude-sonnet-4, provider: anthropic, system_prompt: x }\n"
        "  nodes:\n    - { id: start, type: input }\n"
        "    - { id: reply, type: agent, agent_ref: w, prompt_template: hi }\n"
        "    - { id: use, type: transform, transform: 'run.outputs.reply.body.length' }\n"
        "  edges:\n    - { from: start, to: reply }\n    - { from: reply, to: use }\n",
        encoding="utf-8",
    )
    result = run_cli(flow, "--node", "use")
    assert result.returncode == 1
    assert "note: `use` failed reading a synthesized output: `reply` (agent" in result.stderr
    assert '"outputs": {"reply": …}' in result.stderr
    whole = run_cli(flow)
    assert whole.returncode == 1 and "note: `use` failed reading a synthesized" in whole.stderr
    flow.with_name("pin.samples.json").write_text(
        '{"outputs": {"reply": {"body": "Hello"}}}', encoding="utf-8"
    )
    pinned = run_cli(flow, "--node", "use")
    assert (pinned.returncode, pinned.stdout) == (0, "5\n")


def test_a_workflow_the_engine_refuses_still_dry_runs_with_a_note(workflow: Path) -> None:
    broken = workflow.read_text(encoding="utf-8").replace(
        "    - { from: draft-reply, to: done }",
        "    - { from: draft-reply, to: done }\n    - { from: done, to: nowhere }",
    )
    workflow.write_text(broken, encoding="utf-8")
    result = run_cli(workflow)
    assert "note: the workflow has 1 error(s) (see `relavium-lsp check`)" in result.stderr
    assert result.returncode == 0  # no node failed


DETAIL = "schema_version: '1.0'\nworkflow:\n  id: detail\n" + FAILING_NODES


def test_a_failure_shows_the_authors_error_like_a_compiler(tmp_path: Path) -> None:
    flow = tmp_path / "wf.relavium.yaml"
    flow.write_text(DETAIL, encoding="utf-8")
    text = run_cli(flow)
    assert text.returncode == 1
    lines = text.stdout.splitlines()
    at = lines.index(f"{flow}:10:27: TypeError: cannot read property 'risk' of null")
    assert lines[at + 1] == "           2].map(x => null.risk)"
    assert lines[at + 2] == "  " + " " * len("         2].map(x => null.") + "^~~~"
    single = run_cli(flow, "--node", "check-amount")
    assert f"{flow}:10:27: TypeError: cannot read property 'risk' of null" in single.stderr
    answer = json.loads(run_cli(flow, "--node", "check-amount", "--format", "json").stdout)
    assert answer["error"]["detail"]["range"] == {
        "start": {"line": 9, "character": 26}, "end": {"line": 9, "character": 30}
    }
    whole = json.loads(run_cli(flow, "--format", "json").stdout)
    [failed] = [node for node in whole["nodes"] if node["status"] == "failed"]
    assert failed["error"]["detail"] == answer["error"]["detail"]


def test_run_node_takes_its_own_scope_from_nodes_and_notes_stale_outputs(
    workflow: Path, tmp_path: Path
) -> None:
    # `nodes.combine.outputs` sets what combine sees over the computed ancestors (it was lost
    # once the ancestors ran); a top-level output for a computed node is not used, and the
    # single-node answer says so as the whole run does
    scope = tmp_path / "scope.json"
    scope.write_text(json.dumps({
        "inputs": {"ticket_text": "refund please", "crm_token": "placeholder"},
        "outputs": {"history": {"topic": "stale"}},
        "nodes": {"combine": {"outputs": {"sentiment": {"mood": "calm"}}}},
    }), encoding="utf-8")
    result = run_cli(workflow, "--node", "combine", "--scope", scope, "--format", "json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    seen = answer["scope"]["values"]["run"]["outputs"]
    assert seen["sentiment"] == {"mood": "calm"}
    assert seen["history"] != {"topic": "stale"}
    assert any(note.startswith("the samples' outputs for `history` (now ")
               for note in answer["scope"]["notes"])


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "the file is empty"),
        ("hello\n", "must be a mapping, not the string 'hello'"),
        ("- a\n- b\n", "must be a mapping, not a list"),
        ("schema_version: '1.0'\n", "missing required field 'workflow'"),
        ("a: '" + "x" * (3 * 1024 * 1024) + "'\n", "Relavium refuses workflow sources over 2 MiB"),
    ],
)
def test_a_dry_run_of_what_is_not_a_workflow_is_a_usage_error_with_checks_reason(
    tmp_path: Path, text: str, says: str
) -> None:
    # these printed "dry run ok:" and exited 0 (the oversized one: "does not parse")
    path = tmp_path / "not.relavium.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_cli(path)
    assert result.returncode == 2 and result.stdout == ""
    assert f"{path}: nothing to dry-run: " in result.stderr and says in result.stderr
    checked = subprocess.run([sys.executable, "-m", "server", "check", str(path)],
                             capture_output=True, text=True, timeout=60)
    assert says in checked.stdout


SAMPLED = """\
schema_version: '1.0'
workflow:
  id: sampled
  agents:
    - { id: w, model: claude-sonnet-4, provider: anthropic, system_prompt: x }
  nodes:
    - { id: start, type: input }
    - { id: review, type: agent, agent_ref: w, prompt_template: hi }
  edges:
    - { from: start, to: review }
"""


def test_samples_for_a_node_that_does_not_exist_get_a_note_with_the_closest_id(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sampled.relavium.yaml"
    path.write_text(SAMPLED, encoding="utf-8")
    path.with_name("sampled.samples.json").write_text(
        json.dumps({"outputs": {"reveiw": "fine"}, "nodes": {"stat": {}}}), encoding="utf-8"
    )
    result = run_cli(path)
    assert result.returncode == 0, result.stderr
    assert ("note: sample output `reveiw` is for no node of the workflow; left out "
            "(did you mean 'review'?)") in result.stderr
    assert ("note: sample `nodes` entry `stat` is for no node of the workflow; left out "
            "(did you mean 'start'?)") in result.stderr


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('{"inputs": {"n": ' + "9" * 5000 + "}}", "a number has more than 4,300 digits"),
        (" " * (8 * 1024 * 1024) + "{}", "larger than 8,388,608 bytes (8 MiB)"),
        ("inputs: {}" + " " * (2 * 1024 * 1024), "a YAML samples file is read as a workflow is"),
    ],
)
def test_a_samples_file_python_cannot_hold_is_a_usage_error_naming_it(
    tmp_path: Path, content: str, says: str
) -> None:
    path = tmp_path / "sampled.relavium.yaml"
    path.write_text(SAMPLED, encoding="utf-8")
    suffix = ".samples.json" if content.lstrip().startswith("{") else ".samples.yaml"
    samples = path.with_name("sampled" + suffix)
    samples.write_text(content, encoding="utf-8")
    for arguments in ((), ("--node", "review")):
        result = run_cli(path, *arguments)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert f"sample scope {samples}: {says}" in result.stderr
