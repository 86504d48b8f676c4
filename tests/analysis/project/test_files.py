"""The file-kind decision (`analysis.project.kinds.file_kind`) shared by `check`'s directory walk
and the server, and the walk that uses it."""

import json
from pathlib import Path, PurePosixPath

import pytest

from analysis.project.config import ProjectConfig
from analysis.project.files import walk_workflow_files
from analysis.project.kinds import FileKind, document_kind, file_kind
from tests.conftest import FIXTURES

# The one table every surface's selector is tested against (VS Code and Neovim read it too).
KIND_CASES = json.loads((FIXTURES / "file-kinds.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize(("path", "expected"), KIND_CASES)
def test_file_kind(path: str, expected: str | None) -> None:
    """Agents: the suffix, and every YAML of the engine's agents/ catalog folder; the workflows/
    folder is parsed with parseWorkflow whatever the name (apps/cli/src/workflows/catalog.ts,
    apps/cli/src/chat/agent-source.ts, HodeTech/Relavium 839f2bd)."""
    assert file_kind(PurePosixPath(path)) == (FileKind(expected) if expected else None)


def test_a_document_of_no_kind_is_read_as_a_workflow(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A file named explicitly, standard input and an unsaved buffer have always been workflows;
    a relative name is judged where it is (`check x.yaml` inside .relavium/agents/)."""
    assert document_kind(None) is FileKind.WORKFLOW
    assert document_kind("notes/flow.yaml") is FileKind.WORKFLOW
    (tmp_path / ".relavium" / "agents").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / ".relavium" / "agents")
    assert document_kind("x.yaml") is FileKind.AGENT


def test_directory_walk_skips_sidecars_and_other_yaml(tmp_path: Path) -> None:
    for name in (
        ".relavium/a.yaml",
        ".relavium/a.samples.yaml",
        ".relavium/agents/b.yaml",
        "agents/c.agent.yml",
        "b.relavium.yml",
        "b.samples.json",
        "ci.yaml",
        "node_modules/c.relavium.yaml",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x: 1\n", encoding="utf-8")
    walk = walk_workflow_files(tmp_path, ProjectConfig(tmp_path).excludes)
    found = [p.relative_to(tmp_path).as_posix() for p in walk.files]
    assert sorted(found) == [".relavium/a.yaml", ".relavium/agents/b.yaml", "agents/c.agent.yml",
                             "b.relavium.yml"]
