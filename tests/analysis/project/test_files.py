"""The workflow-file selector shared by `check`'s directory walk and the server."""

from pathlib import Path, PurePosixPath

import pytest

from analysis.project.config import ProjectConfig
from analysis.project.files import is_workflow_path, walk_workflow_files


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("flows/triage.relavium.yaml", True),
        ("flows/triage.relavium.yml", True),
        ("Triage.Relavium.YAML", True),
        ("repo/.relavium/triage.yaml", True),
        ("repo/.relavium/nested/triage.yml", True),
        ("repo/.relavium/triage.samples.yaml", False),
        ("flows/triage.samples.yml", False),
        ("repo/.github/workflows/ci.yaml", False),
        ("repo/relavium/triage.yaml", False),
        ("repo/.relavium/notes.json", False),
    ],
)
def test_selector(path: str, expected: bool) -> None:
    assert is_workflow_path(PurePosixPath(path)) is expected


def test_directory_walk_skips_sidecars_and_other_yaml(tmp_path: Path) -> None:
    for name in (
        ".relavium/a.yaml",
        ".relavium/a.samples.yaml",
        "b.relavium.yml",
        "b.samples.json",
        "ci.yaml",
        "node_modules/c.relavium.yaml",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x: 1\n", encoding="utf-8")
    walk = walk_workflow_files(tmp_path, ProjectConfig(tmp_path).excludes)
    found = [p.relative_to(tmp_path).as_posix() for p in walk.files]
    assert sorted(found) == [".relavium/a.yaml", "b.relavium.yml"]
