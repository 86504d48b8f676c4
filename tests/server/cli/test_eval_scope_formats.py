"""`relavium-lsp eval --scope FILE` reads both formats the docs name, through the real command
line: the eval scope (`run.outputs`, secret lists) and a samples file as `run --scope` takes it
(`outputs`, per-node `nodes`, JSON or YAML); a file mixing the two is a usage error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import relavium_lsp

READ = "[inputs.team, ctx.region, run.outputs.classify.topic]"


def evaluated(scope: Path, *extra: str, expr: str = READ) -> object:
    result = relavium_lsp("eval", "--kind", "transform", "--expr", expr, "--scope", str(scope),
                          "--format", "json", *extra)
    assert result.returncode == 0, result.stdout + result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["ok"], outcome
    return outcome["value"]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_an_eval_scope_file_reads_as_before(tmp_path: Path) -> None:
    scope = write(tmp_path, "scope.json", json.dumps({
        "inputs": {"team": "eu"}, "ctx": {"region": "west"},
        "run": {"outputs": {"classify": {"topic": "billing"}}}, "secret_ctx": []}))
    assert evaluated(scope) == ["eu", "west", "billing"]


def test_a_samples_file_gives_outputs_as_run_outputs(tmp_path: Path) -> None:
    samples = write(tmp_path, "flow.samples.json", json.dumps({
        "inputs": {"team": "eu"}, "ctx": {"region": "west"},
        "outputs": {"classify": {"topic": "billing"}}, "notes": ["pins for the dry run"]}))
    assert evaluated(samples) == ["eu", "west", "billing"]


def test_a_yaml_samples_file_and_a_nodes_override(tmp_path: Path) -> None:
    samples = write(tmp_path, "flow.samples.yaml", """\
inputs: { team: eu }
ctx: { region: west }
outputs: { classify: { topic: billing } }
nodes:
  route: { inputs: { team: us }, outputs: { classify: { topic: refunds } } }
""")
    assert evaluated(samples) == ["eu", "west", "billing"]
    assert evaluated(samples, "--node", "route") == ["us", "west", "refunds"]


def test_samples_branches_reach_a_merge(tmp_path: Path) -> None:
    samples = write(tmp_path, "flow.samples.json",
                    json.dumps({"outputs": {}, "branches": [1, 2, 3]}))
    result = relavium_lsp("eval", "--kind", "merge", "--expr", "branches.length",
                          "--scope", str(samples), "--format", "json")
    assert json.loads(result.stdout) == {"ok": True, "value": 3}


@pytest.mark.parametrize(
    "document",
    [{"outputs": {}, "secret_inputs": []}, {"nodes": {}, "secret_ctx": ["key"]}],
    ids=["outputs+secret_inputs", "nodes+secret_ctx"],
)
def test_a_file_mixing_the_two_formats_is_a_usage_error(
    tmp_path: Path, document: dict[str, object]
) -> None:
    scope = write(tmp_path, "scope.json", json.dumps(document))
    result = relavium_lsp("eval", "--kind", "transform", "--expr", "1", "--scope", str(scope))
    assert result.returncode == 2
    assert "mixes the eval scope format" in result.stderr
    assert "and the samples format" in result.stderr
    assert "Traceback" not in result.stderr


def test_node_names_an_entry_the_samples_have(tmp_path: Path) -> None:
    samples = write(tmp_path, "flow.samples.json", json.dumps({"nodes": {"route": {}}}))
    result = relavium_lsp("eval", "--kind", "transform", "--expr", "1", "--scope", str(samples),
                          "--node", "other")
    assert result.returncode == 2
    assert "--node other: no such entry under `nodes` (entries: route)" in result.stderr


def test_a_malformed_samples_file_is_a_usage_error_naming_the_field(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.samples.yaml", "outputs: [not, an, object]\n")
    refused = relavium_lsp("eval", "--kind", "transform", "--expr", "1", "--scope", str(bad))
    assert refused.returncode == 2
    assert "outputs" in refused.stderr and "Traceback" not in refused.stderr
