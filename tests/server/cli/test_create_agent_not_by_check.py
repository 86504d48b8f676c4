""""Create agent `x`" is the editor's fix alone: `check --fix --unsafe-fixes` (the real CLI)
writes the files it checks and never creates an agent file, and the fix is offered only for a
workflow in a project, for an id the engine accepts, when the file does not exist."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from analysis.checks.analyze import analyze
from analysis.project.workspace import WorkspaceIndex

WORKFLOW = ("schema_version: '1.0'\nworkflow:\n  id: demo\n  agents:\n"
            "    - {{ id: writer, model: m, provider: anthropic, system_prompt: p }}\n"
            "  nodes:\n    - {{ id: start, type: input }}\n"
            "    - {{ id: a, type: agent, agent_ref: {use} }}\n"
            "  edges:\n    - {{ from: start, to: a }}\n")


def creating_fixes(tmp_path: Path, use: str, project: bool = True) -> list[str]:
    if project:
        (tmp_path / ".relavium" / "workflows").mkdir(parents=True, exist_ok=True)
        path = tmp_path / ".relavium" / "workflows" / "w.relavium.yaml"
    else:
        path = tmp_path / "w.relavium.yaml"
    text = WORKFLOW.format(use=use)
    result = analyze(text, str(path), workspace=WorkspaceIndex(str(tmp_path)))
    return [fix.title for d in result.diagnostics for fix in d.fixes if fix.creates]


def test_check_fix_never_creates_the_agent_file(tmp_path: Path) -> None:
    (tmp_path / ".relavium" / "workflows").mkdir(parents=True)
    path = tmp_path / ".relavium" / "workflows" / "w.relavium.yaml"
    path.write_text(WORKFLOW.format(use="researcher"), encoding="utf-8")
    assert creating_fixes(tmp_path, "researcher") == [
        "Create agent `researcher` in .relavium/agents/researcher.agent.yaml"]
    done = subprocess.run([sys.executable, "-m", "server", "check", "--fix", "--unsafe-fixes",
                           str(path)], capture_output=True, cwd=tmp_path)
    assert b"unknown-agent" in done.stdout
    assert not (tmp_path / ".relavium" / "agents").exists()
    assert path.read_text(encoding="utf-8") == WORKFLOW.format(use="researcher")


def test_the_fix_is_offered_only_where_the_file_would_resolve(tmp_path: Path) -> None:
    assert creating_fixes(tmp_path / "alone", "researcher", project=False) == []
    # the engine's kebabIdSchema refuses this id: an agent file with it would not load
    assert creating_fixes(tmp_path, "Researcher") == []
    taken = tmp_path / ".relavium" / "agents" / "researcher.agent.yaml"
    taken.parent.mkdir(parents=True)
    taken.symlink_to(tmp_path / "nowhere")  # a dangling link is something that exists
    assert creating_fixes(tmp_path, "researcher") == []
