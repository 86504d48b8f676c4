"""Agent files through the real command line: a project in the engine's layout
(`.relavium/workflows/`, `.relavium/agents/`: apps/cli/src/workflows/catalog.ts, HodeTech/Relavium
839f2bd) checks clean, an agent file is judged as an agent wherever the engine reads one, and
`run` says an agent file is not a workflow."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLES, FIXTURES, relavium_lsp

SPEC_AGENT = (FIXTURES / "agents" / "engine" / "spec-example.agent.yaml").read_text(
    encoding="utf-8")


def engine_layout(root: Path) -> Path:
    project = root / ".relavium"
    (project / "workflows").mkdir(parents=True)
    (project / "agents").mkdir()
    example = EXAMPLES / "ticket-triage.relavium.yaml"
    (project / "workflows" / example.name).write_text(example.read_text(encoding="utf-8"),
                                                      encoding="utf-8")
    (project / "agents" / "summarizer.agent.yaml").write_text(SPEC_AGENT, encoding="utf-8")
    return project


def test_a_project_in_the_engines_layout_checks_clean(tmp_path: Path) -> None:
    engine_layout(tmp_path)
    result = relavium_lsp("check", "--no-config", "--format", "json", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout) == []
    assert "2 files checked" in relavium_lsp("check", "--no-config", str(tmp_path)).stderr


def test_an_agent_is_judged_as_an_agent_under_any_name_in_agents(tmp_path: Path) -> None:
    """`chat --agent x` finds `.relavium/agents/x.relavium.yaml` and parses it with parseAgent
    (apps/cli/src/chat/agent-source.ts): an agent there, not a workflow missing its keys."""
    project = engine_layout(tmp_path)
    broken = SPEC_AGENT.replace("temperature: 0.3", "temperature: 2.5")
    (project / "agents" / "writer.relavium.yaml").write_text(broken, encoding="utf-8")
    result = relavium_lsp("check", "--no-config", "--format", "json", str(tmp_path))
    assert result.returncode == 1
    found = [(Path(record["path"]).name, record["code"]) for record in json.loads(result.stdout)]
    assert found == [("writer.relavium.yaml", "invalid-value")]


def test_an_agent_file_named_alone_is_an_agent(tmp_path: Path) -> None:
    agent = tmp_path / "summarizer.agent.yaml"
    agent.write_text(SPEC_AGENT, encoding="utf-8")
    assert relavium_lsp("check", "--no-config", str(agent)).returncode == 0


def test_run_says_an_agent_file_is_not_a_workflow(tmp_path: Path) -> None:
    project = engine_layout(tmp_path)
    result = relavium_lsp("run", str(project / "agents" / "summarizer.agent.yaml"))
    assert result.returncode == 2
    assert "this is an agent file, not a workflow" in result.stderr
