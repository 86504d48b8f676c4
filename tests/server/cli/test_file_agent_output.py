"""A node whose agent is in an agent file gets that agent's `output_schema` as its output when it
has none of its own (the engine's `node.output_schema ?? agent.output_schema`,
packages/core/src/engine/agent-runner.ts 839f2bd): in the dry run (`relavium-lsp run`, the real
CLI), the samples skeleton, the dataflow's output type and typed completion; judged alone, as
before, it answers text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from analysis.checks.analyze import analyze
from analysis.dryrun.skeleton import sidecar_skeleton
from analysis.ide.completion import complete
from analysis.project.workspace import WorkspaceIndex
from analysis.schema.value_types import NumberType, ObjectType, StringType
from analysis.types.dataflow import dataflow_of
from tests.analysis.dryrun.test_sample_skeleton import in_process

AGENT = """id: reviewer
model: claude-sonnet-4-5
provider: anthropic
system_prompt: You review.
output_schema:
  type: object
  properties:
    verdict: { type: string }
    score: { type: integer }
"""
WORKFLOW = """schema_version: '1.0'
workflow:
  id: w
  nodes:
    - { id: start, type: input }
    - { id: review, type: agent, agent_ref: reviewer }
    - { id: t, type: transform, transform: 'run.outputs.review.score + 1' }
  edges:
    - { from: start, to: review }
    - { from: review, to: t }
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / ".relavium" / "agents").mkdir(parents=True)
    (tmp_path / ".relavium" / "agents" / "reviewer.agent.yaml").write_text(AGENT, "utf-8")
    path = tmp_path / ".relavium" / "workflows" / "w.relavium.yaml"
    path.parent.mkdir()
    path.write_text(WORKFLOW, encoding="utf-8")
    return path


def test_the_dry_run_synthesizes_the_file_agents_output(tmp_path: Path) -> None:
    path = project(tmp_path)
    done = subprocess.run([sys.executable, "-m", "server", "run", "--format", "json", str(path)],
                          capture_output=True, cwd=tmp_path, check=True)
    nodes = {node["id"]: node for node in json.loads(done.stdout)["nodes"]}
    assert nodes["review"]["value"] == {"verdict": "", "score": 0}
    assert nodes["t"]["value"] == 1


def test_the_output_type_and_the_samples_skeleton_follow_the_file_agent(tmp_path: Path) -> None:
    path = project(tmp_path)
    result = analyze(WORKFLOW, str(path), workspace=WorkspaceIndex(str(tmp_path)))
    assert result.workflow is not None and result.graph is not None
    output = dataflow_of(result.workflow, result.graph, result.file_agent).output_of("review")
    assert output is not None and output.type == ObjectType(
        (("verdict", StringType()), ("score", NumberType(integer=True))))
    typing = WORKFLOW.replace("run.outputs.review.score + 1", "run.outputs.review.")
    offset = typing.index("run.outputs.review.") + len("run.outputs.review.")
    offered = {candidate.label: candidate.detail for candidate in complete(
        result, typing, offset, WorkspaceIndex(str(tmp_path)).resolve(str(path), result.workflow))}
    assert offered == {"verdict": "string (optional)", "score": "number (optional)"}
    skeleton = sidecar_skeleton(result.workflow, result.graph, in_process,
                                file_agent=result.file_agent)
    assert json.loads(skeleton.text)["outputs"]["review"] == {"verdict": "", "score": 0}

    alone = analyze(WORKFLOW, str(path))
    assert alone.file_agent is None
    assert alone.workflow is not None and alone.graph is not None
    text = sidecar_skeleton(alone.workflow, alone.graph, in_process).text
    assert json.loads(text)["outputs"]["review"] == "(sample text from review)"
