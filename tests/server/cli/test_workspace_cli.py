"""`check PATHS` resolves agents across files: a workflow's `$ref` files and its project's
`.relavium/agents/` (analysis/project/workspace.py), through the real command line on a project in
the engine's layout (tests/fixtures/workspace/clean, copied and broken one way per test)."""

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, relavium_lsp

CLEAN = FIXTURES / "workspace" / "clean"
WORKFLOW = Path(".relavium", "workflows", "digest.relavium.yaml")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    shutil.copytree(CLEAN, copy)
    return copy


def findings(project: Path, *paths: str) -> tuple[int, list[dict[str, object]]]:
    result = relavium_lsp("check", "--no-config", "--format", "json", *(paths or (".",)),
                          cwd=project)
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


def edit(project: Path, old: str, new: str, path: Path = WORKFLOW) -> None:
    text = (project / path).read_text(encoding="utf-8")
    assert old in text
    (project / path).write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_engine_layout_project_checks_clean(project: Path) -> None:
    result = relavium_lsp("check", "--no-config", ".", cwd=project)
    assert result.returncode == 0, result.stdout
    assert "3 files checked: 0 errors, 0 warnings" in result.stderr


def test_a_workflow_checked_alone_still_sees_its_project_agents(project: Path) -> None:
    # Named on its own, from inside the workflows folder: the project is found above it.
    code, found = findings(project / ".relavium" / "workflows", "digest.relavium.yaml")
    assert (code, found) == (0, [])


def test_a_typo_in_an_agent_ref_names_the_closest_agent(project: Path) -> None:
    edit(project, "agent_ref: summarizer", "agent_ref: sumarizer")
    code, found = findings(project)
    assert code == 0  # a warning
    [finding] = found
    assert finding["code"] == "unknown-agent"
    assert finding["data"] == {"name": "sumarizer", "replacement": "summarizer"}
    assert "did you mean 'summarizer'" in str(finding["message"])


def test_a_typo_of_a_project_folder_agent_is_found_too(project: Path) -> None:
    edit(project, "agent_ref: reviewer", "agent_ref: reveiwer")
    _, found = findings(project)
    assert [(f["code"], f["data"]) for f in found] == \
        [("unknown-agent", {"name": "reveiwer", "replacement": "reviewer"})]


def test_a_ref_to_a_missing_file_is_an_error_at_the_ref(project: Path) -> None:
    (project / ".relavium" / "agents" / "summarizer.agent.yaml").unlink()
    code, found = findings(project)
    assert code == 1
    [finding] = found
    assert finding["code"] == "unresolved-agent-file"
    assert finding["range"]["start"] == {"line": 7, "character": 12}
    assert "'../agents/summarizer.agent.yaml' does not exist" in str(finding["message"])


def test_an_invalid_agent_file_keeps_its_errors_and_the_ref_names_it(project: Path) -> None:
    edit(project, "provider: anthropic", "provider: antropic",
         Path(".relavium", "agents", "summarizer.agent.yaml"))
    code, found = findings(project)
    assert code == 1
    by_file = {(Path(str(f["path"])).name, f["code"]) for f in found}
    assert by_file == {("summarizer.agent.yaml", "invalid-value"),
                       ("digest.relavium.yaml", "unresolved-agent-file")}


def test_an_id_two_project_files_define_is_ambiguous(project: Path) -> None:
    copy = project / ".relavium" / "agents" / "summarizer-v2.yaml"
    shutil.copy(project / ".relavium" / "agents" / "summarizer.agent.yaml", copy)
    code, found = findings(project)
    assert code == 0
    [finding] = found
    assert finding["code"] == "ambiguous-agent"
    assert "summarizer-v2.yaml" in str(finding["message"])


def test_an_inline_agent_with_a_ref_agents_id_makes_the_ref_unused(project: Path) -> None:
    edit(project, "    - id: writer\n", "    - id: summarizer\n")
    edit(project, "agent_ref: writer", "agent_ref: summarizer")
    _, found = findings(project)
    # The inline agent is the one the nodes get (dag.ts resolveAgents): it grants no tools, so
    # the node listing read_file widens it.
    assert [(f["code"], f["range"]["start"]["line"]) for f in found] == \
        [("ambiguous-agent", 7), ("ungranted-tool", 17)]


def test_a_node_widening_a_file_agents_grant_is_refused(project: Path) -> None:
    edit(project, "tools: [read_file]\n      prompt",
         "tools: [read_file, write_file]\n      prompt")
    code, found = findings(project)
    assert code == 1
    assert [(f["code"], f["data"]["agent"]) for f in found] == [("ungranted-tool", "summarizer")]


def test_standard_input_judges_the_file_alone(project: Path) -> None:
    text = (project / WORKFLOW).read_text(encoding="utf-8").replace("summarizer.agent", "nope")
    result = relavium_lsp("check", "--no-config", "--format", "json", "-", cwd=project,
                          input=text)
    assert (result.returncode, json.loads(result.stdout)) == (0, [])


def test_fix_resolves_agents_as_the_report_does(project: Path) -> None:
    # --fix analyses with the same project index as the report: the typo's closest agent is the
    # project's `summarizer`, which an analysis of the file alone would not know
    edit(project, "agent_ref: summarizer", "agent_ref: sumarizer")
    result = relavium_lsp("check", "--no-config", "--unsafe-fixes", "--fix", ".", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "agent_ref: summarizer" in (project / WORKFLOW).read_text(encoding="utf-8")
    assert "0 errors, 0 warnings, 1 fixed" in result.stderr
