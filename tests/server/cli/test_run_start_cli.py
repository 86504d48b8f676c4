"""`relavium-lsp run FILE`: the workflow's `context:` is resolved when the run starts, before any
node, and a reference that cannot be resolved fails the run.

The engine pinned (HodeTech/Relavium 839f2bd; resolve.ts unchanged at 27438a0):
packages/core/src/engine/engine.ts `start` → `#resolveContextOrFail` resolves the context once,
in declared order, and on a throw sets the run's failure `{code: "validation", message,
retryable: false}` and settles `run:failed` before `#schedule()` claims any node;
packages/core/src/interpolation/resolve.ts `resolveContext` / `stringify` throw on a reference
that resolves to undefined or null (a null input the newest `start()` refuses already), and
filters.ts `default`
replaces only undefined/null while `read_file` throws on anything but a string. Every case was
also run through the July engine's own `WorkflowEngine` under Node: each failing one settled
`run:failed` (`validation`) with no node event, each other one completed (a `read_file` of a path
string aside: that harness gave the run no host file reader).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SECRET = "s3cr3t-never-shown"

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: run-start
  inputs:
    - { name: name, type: string, required: false }
    - { name: count, type: number, required: false }
    - { name: token, type: secret, required: false }
  context:
    - { key: team, value: support }
    - { key: greeting, value: "GREETING" }
    - { key: later, value: soon }
  nodes:
    - { id: start, type: input }
    - { id: shout, type: transform, transform: 'ctx.team.toUpperCase()' }
    - { id: done, type: output }
  edges:
    - { from: start, to: shout }
    - { from: shout, to: done }
"""


def run_cli(tmp_path: Path, greeting: str, inputs: dict[str, Any], *args: str) -> tuple[
    subprocess.CompletedProcess[str], dict[str, Any] | None
]:
    flow = tmp_path / "flow.relavium.yaml"
    flow.write_text(WORKFLOW.replace("GREETING", greeting), encoding="utf-8")
    (tmp_path / "flow.samples.json").write_text(json.dumps({"inputs": inputs}), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "server", "run", str(flow), *args, "--format", "json"],
        capture_output=True, text=True, timeout=60,
    )
    answer = json.loads(result.stdout) if result.stdout.startswith("{") else None
    return result, answer


@pytest.mark.parametrize(
    ("greeting", "inputs", "why"),
    [
        # an omitted optional input, no `| default`: undefined
        ("Hi {{ inputs.name }}", {}, "resolved to no value"),
        # an omitted optional secret: the engine resolves the context with the secret's text
        ("Bearer {{ inputs.token }}", {}, "resolved to no value"),
        # read_file given a number
        ("{{ inputs.count | read_file }}", {"count": 3}, "gave `read_file` no file path string"),
        # a key declared later is not resolved yet
        ("Hi {{ ctx.later }}", {}, "resolved to no value"),
    ],
)
def test_an_unresolvable_context_fails_the_run_before_any_node(
    tmp_path: Path, greeting: str, inputs: dict[str, Any], why: str
) -> None:
    result, answer = run_cli(tmp_path, greeting, inputs)
    assert result.returncode == 1, result.stderr
    assert answer is not None
    assert answer["ok"] is False
    assert answer["error"]["code"] == "validation" and answer["error"]["retryable"] is False
    assert answer["error"]["message"].startswith("context `greeting`: `{{ ")
    assert why in answer["error"]["message"]
    assert [(node["id"], node["status"]) for node in answer["nodes"]] == [
        ("start", "not-run"), ("shout", "not-run"), ("done", "not-run")
    ]


@pytest.mark.parametrize(
    ("greeting", "inputs"),
    [
        ("Hi {{ inputs.name | default('there') }}", {}),
        ("Hi {{ inputs.name }}", {"name": ""}),  # an empty string is a value
        ("Hi {{ inputs.count }}", {"count": 0}),
        ("Hi {{ inputs.name | json }}", {"name": "Ada"}),
        ("Bearer {{ inputs.token }}", {"token": SECRET}),
        ("{{ inputs.name | read_file }}", {"name": "notes.md"}),  # the host reads the file
        ("{{ inputs.count | default('notes.md') | read_file }}", {}),
        ("Hi {{ ctx.team }}", {}),  # a key declared before
    ],
)
def test_a_context_the_engine_resolves_runs(
    tmp_path: Path, greeting: str, inputs: dict[str, Any]
) -> None:
    result, answer = run_cli(tmp_path, greeting, inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    assert answer is not None and answer["ok"] is True and "error" not in answer
    assert answer["nodes"][-1] == {**answer["nodes"][-1], "id": "done", "value": "SUPPORT"}
    assert SECRET not in result.stdout + result.stderr


def test_the_message_never_shows_a_value(tmp_path: Path) -> None:
    result, answer = run_cli(tmp_path, "{{ inputs.count | read_file }} {{ inputs.token }}",
                             {"count": 7, "token": SECRET})
    assert answer is not None and answer["ok"] is False
    assert SECRET not in result.stdout + result.stderr


def test_a_node_after_a_failed_context_is_refused_with_the_reason(tmp_path: Path) -> None:
    # `run --node`: the node's ancestors cannot run, so neither can it
    result, answer = run_cli(tmp_path, "Hi {{ inputs.name }}", {}, "--node", "shout")
    assert (result.returncode, answer) == (2, None)
    assert "context `greeting`: `{{ inputs.name }}` resolved to no value" in result.stderr
