"""`relavium-lsp graph` through the real command line: its formats, its default, `--dry-run`
with `--scope`, `-o`, and the exit codes and messages of what it cannot draw."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES

LEAK = EXAMPLES / "broken" / "ticket-triage-leak.relavium.yaml"
SAMPLES = EXAMPLES / "ticket-triage.samples.json"


def graph(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", "graph", *map(str, args)],
        capture_output=True, text=True, encoding="utf-8", timeout=60,
    )


def test_mermaid_is_the_default_and_names_the_leak() -> None:
    result = graph(LEAK)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("flowchart TD\n")
    assert "  class n3 leaked" in result.stdout and result.stderr == ""


@pytest.mark.parametrize(("format_", "start"), [
    ("mermaid", "flowchart TD\n"), ("dot", 'digraph "ticket-triage-leak" {\n'),
    ("html", "<!DOCTYPE html>\n"), ("json", "{\n"),
])
def test_every_format(format_: str, start: str) -> None:
    result = graph(LEAK, "--format", format_)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(start)


def test_json_with_a_dry_run_and_its_samples() -> None:
    result = graph(LEAK, "--format", "json", "--dry-run", "--scope", SAMPLES)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    statuses = {node["id"]: node["status"]["state"] for node in answer["nodes"]}
    assert statuses["classify"] == "pinned" and statuses["escalate"] == "synthesized"
    assert statuses["route"] == "ran" and answer["run"]["ok"] is True
    secret = json.loads(SAMPLES.read_text(encoding="utf-8"))["inputs"]["crm_token"]
    assert secret not in result.stdout


def test_output_file_and_a_failing_dry_run(tmp_path: Path) -> None:
    workflow = tmp_path / "fails.relavium.yaml"
    workflow.write_text("""\
schema_version: '1.0'
workflow:
  id: fails
  nodes:
    - { id: start, type: input }
    - { id: boom, type: transform, transform: 'null.x' }
  edges:
    - { from: start, to: boom }
""", encoding="utf-8")
    out = tmp_path / "graph.html"
    result = graph(workflow, "--format", "html", "--dry-run", "-o", out)
    assert result.returncode == 1, result.stderr  # a node failed, as `run` exits
    assert result.stdout == "" and out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert '"state":"failed"' in out.read_text(encoding="utf-8").replace(" ", "")


def test_a_file_with_errors_is_drawn_with_a_note(tmp_path: Path) -> None:
    workflow = tmp_path / "typo.relavium.yaml"
    workflow.write_text(LEAK.read_text(encoding="utf-8").replace(
        "type: transform", "type: transfrom", 1), encoding="utf-8")
    result = graph(workflow)
    assert result.returncode == 0
    assert result.stdout.startswith("flowchart TD")
    assert "has 1 error(s) (see `relavium-lsp check`)" in result.stderr


@pytest.mark.parametrize(("name", "text", "said"), [
    ("broken.relavium.yaml", "workflow: [unclosed\n", "nothing to draw: "),
    (".relavium/agents/a.agent.yaml", "id: a\nmodel: m\n", "this is an agent file"),
])
def test_nothing_to_draw_exits_2_with_the_reason(
    tmp_path: Path, name: str, text: str, said: str
) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    result = graph(path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"relavium-lsp graph: {path}: {said}")


def test_usage_errors(tmp_path: Path) -> None:
    missing = graph(tmp_path / "absent.relavium.yaml")
    assert missing.returncode == 2 and "cannot read it" in missing.stderr
    lone_scope = graph(LEAK, "--scope", SAMPLES)
    assert lone_scope.returncode == 2 and "--scope is for --dry-run" in lone_scope.stderr
    bad_samples = tmp_path / "bad.json"
    bad_samples.write_text('{"bogus": 1}', encoding="utf-8")
    refused = graph(LEAK, "--dry-run", "--scope", bad_samples)
    assert refused.returncode == 2 and "unknown key `bogus`" in refused.stderr
    assert graph(LEAK, "--format", "svg").returncode == 2
