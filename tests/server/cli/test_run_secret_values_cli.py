"""`relavium-lsp run`: no value a run shows carries a secret sample value. The input node's output
(what `run.outputs["start"]` reads) holds a secret input as the marker `{secret: true, ref}`, not
its value (expression-sandbox-spec.md: secrets never enter the scope), so a node passing that
output on passes the marker; the text and the JSON output show only that."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SECRET = "s3cr3t-token-never-shown"

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: secret-values
  inputs:
    - { name: ticket, type: string, required: true }
    - { name: token, type: secret, required: true }
  nodes:
    - { id: start, type: input }
    - { id: echo, type: transform, transform: 'run.outputs["start"]' }
    - { id: size, type: transform, transform: 'JSON.stringify(run.outputs["echo"]).length' }
    - { id: done, type: output }
  edges:
    - { from: start, to: echo }
    - { from: echo, to: size }
    - { from: size, to: done }
"""


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_run_never_shows_a_secret_sample_value(tmp_path: Path, output_format: str) -> None:
    flow = tmp_path / "flow.relavium.yaml"
    flow.write_text(WORKFLOW, encoding="utf-8")
    (tmp_path / "flow.samples.json").write_text(
        json.dumps({"inputs": {"ticket": "printer on fire", "token": SECRET}}), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "server", "run", str(flow), "--format", output_format],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert SECRET not in result.stdout + result.stderr
    assert "printer on fire" in result.stdout  # the other input is shown as it is
    if output_format == "json":
        nodes = {entry["id"]: entry for entry in json.loads(result.stdout)["nodes"]}
        assert nodes["echo"]["value"]["token"] == {"secret": True, "ref": "inputs.token"}
    else:
        assert 'echo (transform) ran: {"ticket": "printer on fire", "token": {"secret": true' \
            in result.stdout
