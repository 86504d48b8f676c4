"""The file-kind decision (`analysis.project.kinds.file_kind`) shared by `check`'s directory walk
and the server, and the walk that uses it."""

from pathlib import Path, PurePosixPath

import pytest

from analysis.project.config import ProjectConfig
from analysis.project.files import walk_workflow_files
from analysis.project.kinds import FileKind, document_kind, file_kind


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("flows/triage.relavium.yaml", FileKind.WORKFLOW),
        ("flows/triage.relavium.yml", FileKind.WORKFLOW),
        ("Triage.Relavium.YAML", FileKind.WORKFLOW),
        ("repo/.relavium/triage.yaml", FileKind.WORKFLOW),
        ("repo/.relavium/nested/triage.yml", FileKind.WORKFLOW),
        ("repo/.relavium/triage.samples.yaml", None),
        ("flows/triage.samples.yml", None),
        ("repo/.github/workflows/ci.yaml", None),
        ("repo/relavium/triage.yaml", None),
        ("repo/.relavium/notes.json", None),
        # agents: the suffix, and every YAML of the engine's agents/ catalog folder
        # (apps/cli/src/workflows/catalog.ts and chat/agent-source.ts, HodeTech/Relavium 839f2bd)
        ("agents/summarizer.agent.yaml", FileKind.AGENT),
        ("Summarizer.Agent.YML", FileKind.AGENT),
        ("repo/.relavium/agents/summarizer.agent.yaml", FileKind.AGENT),
        ("repo/.relavium/agents/summarizer.yaml", FileKind.AGENT),
        ("repo/.relavium/agents/summarizer.relavium.yaml", FileKind.AGENT),
        ("repo/.relavium/agents/team/summarizer.yml", FileKind.AGENT),
        ("repo/.relavium/agents/summarizer.samples.yaml", None),
        ("repo/.relavium/x.agent.yaml", FileKind.AGENT),
        # the workflows/ catalog folder is parsed with parseWorkflow, whatever the name
        ("repo/.relavium/workflows/triage.yaml", FileKind.WORKFLOW),
        ("repo/.relavium/workflows/odd.agent.yaml", FileKind.WORKFLOW),
        # `agents` only as the folder right under .relavium/
        ("repo/agents/triage.relavium.yaml", FileKind.WORKFLOW),
        ("repo/agents/triage.yaml", None),
        ("repo/.relavium/team/agents/triage.yaml", FileKind.WORKFLOW),
        ("repo/.relavium/agents.yaml", FileKind.WORKFLOW),
    ],
)
def test_file_kind(path: str, expected: FileKind | None) -> None:
    assert file_kind(PurePosixPath(path)) is expected


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
