"""`relavium-lsp run FILE --scope SAMPLES`: the samples' inputs are admitted as the newest
engine's `start()` admits them (ADR-0083 §1-2 and §4; the engine's
`resolveAndValidateWorkflowInputs` and packages/shared/src/workflow.ts `violatesInputContract`,
HodeTech/Relavium 115ad1b). The July snapshot (839f2bd) applied no default and validated
nothing; the newest contract wins. A refused samples file is a usage error (exit 2) that names
the input and why, never the value."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: admitted
  inputs:
    - { name: count, type: number, required: true, validation: { min: 1, max: 5 } }
    - { name: mail, type: string, validation: { format: email } }
    - { name: code, type: string, validation: { pattern: '[A-Z]{2}\\d', max_length: 8 } }
    - { name: tier, type: string, default: free, validation: { enum: [free, paid] } }
    - { name: loud, type: boolean }
  nodes:
    - { id: start, type: input }
    - { id: echo, type: transform, transform: '[inputs.count, inputs.tier, inputs.loud]' }
  edges:
    - { from: start, to: echo }
"""


def run_with(tmp_path: Path, inputs: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    workflow = tmp_path / "admitted.relavium.yaml"
    workflow.write_text(WORKFLOW, encoding="utf-8")
    samples = tmp_path / "given.json"
    samples.write_text(json.dumps({"inputs": inputs}), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "server", "run", str(workflow), "--scope", str(samples),
         "--format", "json"],
        capture_output=True, text=True, timeout=60,
    )


@pytest.mark.parametrize(
    ("inputs", "says"),
    [
        ({"count": "3"}, "sample input `count`: expected a finite number"),
        ({"count": None}, "sample input `count`: expected a finite number"),
        ({"count": 9}, "sample input `count`: the value is above the declared maximum"),
        ({"count": 2, "mail": "not-mail"}, "sample input `mail`: the value is not a valid email"),
        ({"count": 2, "code": "ab1"},
         "sample input `code`: the value does not match the declared pattern"),
        ({"count": 2, "tier": "gold"},
         "sample input `tier`: the value is not one of the allowed enum members"),
        ({"count": 2, "loud": 1}, "sample input `loud`: expected a boolean"),
        ({"count": 2, "cuont": 2}, "sample input `cuont` is not declared by the workflow"),
    ],
)
def test_a_samples_file_the_engine_would_refuse_is_a_usage_error(
    tmp_path: Path, inputs: dict[str, Any], says: str
) -> None:
    result = run_with(tmp_path, inputs)
    assert result.returncode == 2, result.stdout
    assert says in result.stderr
    assert "not-mail" not in result.stderr and "gold" not in result.stderr  # never the value


def test_admitted_inputs_run_with_their_defaults(tmp_path: Path) -> None:
    # a number, a matching pattern, an absent optional: the default applies, `loud` stays absent
    result = run_with(tmp_path, {"count": 2, "code": "AB1", "mail": "a@b.io"})
    assert result.returncode == 0, result.stderr
    nodes = {node["id"]: node for node in json.loads(result.stdout)["nodes"]}
    assert nodes["echo"]["value"] == [2, "free", None]
