"""`relavium.createSampleScope` writes a file whose name and folder a repository controls, so the
writer must never follow a link, never leave the workspace and never replace anything (issue 9
item 5). Each test plants one variant of the trap and checks that nothing was written anywhere."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analysis.dryrun.samples import SampleScopeError, write_sidecar
from analysis.project import new_files

SKELETON = '{"inputs": {}}\n'


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace with a workflow in it, and a folder outside it the attacker aims at."""
    workspace = tmp_path / "workspace"
    outside = tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (workspace / "flow.relavium.yaml").write_text("workflow: {}\n", encoding="utf-8")
    return workspace, outside


def refused(workflow: Path, roots: list[Path], says: str) -> None:
    with pytest.raises(SampleScopeError) as raised:
        write_sidecar(workflow, SKELETON, roots)
    message = str(raised.value)
    assert str(workflow.with_name("flow.samples.json")) in message  # names the file
    assert says in message


def test_a_plain_sidecar_is_created(tree: tuple[Path, Path]) -> None:
    workspace, _ = tree
    target = write_sidecar(workspace / "flow.relavium.yaml", SKELETON, [workspace])
    assert target == workspace / "flow.samples.json"
    assert target.read_text(encoding="utf-8") == SKELETON


def test_a_dangling_link_is_not_written_through(tree: tuple[Path, Path]) -> None:
    workspace, outside = tree
    aim = outside / ".bash_profile"
    (workspace / "flow.samples.json").symlink_to(aim)
    refused(workspace / "flow.relavium.yaml", [workspace], "symbolic link")
    assert not aim.exists()


def test_a_link_to_an_existing_file_is_not_written_through(tree: tuple[Path, Path]) -> None:
    workspace, outside = tree
    aim = outside / "profile"
    aim.write_text("mine\n", encoding="utf-8")
    (workspace / "flow.samples.json").symlink_to(aim)
    refused(workspace / "flow.relavium.yaml", [workspace], "symbolic link")
    assert aim.read_text(encoding="utf-8") == "mine\n"


def test_a_link_to_a_directory_is_refused(tree: tuple[Path, Path]) -> None:
    workspace, outside = tree
    (workspace / "flow.samples.json").symlink_to(outside, target_is_directory=True)
    refused(workspace / "flow.relavium.yaml", [workspace], "symbolic link")
    assert list(outside.iterdir()) == []


def test_a_link_inside_the_workspace_is_refused_too(tree: tuple[Path, Path]) -> None:
    workspace, _ = tree
    (workspace / "flow.samples.json").symlink_to(workspace / "elsewhere.json")
    refused(workspace / "flow.relavium.yaml", [workspace], "symbolic link")
    assert not (workspace / "elsewhere.json").exists()


def test_a_folder_link_leading_outside_is_refused(tree: tuple[Path, Path]) -> None:
    workspace, outside = tree
    (outside / "flow.relavium.yaml").write_text("workflow: {}\n", encoding="utf-8")
    (workspace / "linked").symlink_to(outside, target_is_directory=True)
    workflow = workspace / "linked" / "flow.relavium.yaml"
    refused(workflow, [workspace], "outside the workspace")
    assert not (outside / "flow.samples.json").exists()


def test_a_folder_link_that_stays_inside_is_followed(tree: tuple[Path, Path]) -> None:
    workspace, _ = tree
    real = workspace / "real"
    real.mkdir()
    (real / "flow.relavium.yaml").write_text("workflow: {}\n", encoding="utf-8")
    (workspace / "alias").symlink_to(real, target_is_directory=True)
    target = write_sidecar(workspace / "alias" / "flow.relavium.yaml", SKELETON, [workspace])
    assert (real / "flow.samples.json").read_text(encoding="utf-8") == SKELETON
    assert target.name == "flow.samples.json"


def test_a_workflow_outside_every_workspace_folder_is_refused(tree: tuple[Path, Path]) -> None:
    workspace, outside = tree
    (outside / "flow.relavium.yaml").write_text("workflow: {}\n", encoding="utf-8")
    refused(outside / "flow.relavium.yaml", [workspace], "outside the workspace")
    assert not (outside / "flow.samples.json").exists()


def test_a_workspace_root_that_is_itself_a_link_is_resolved(tree: tuple[Path, Path]) -> None:
    workspace, _ = tree
    alias = workspace.parent / "alias-of-workspace"
    alias.symlink_to(workspace, target_is_directory=True)
    write_sidecar(workspace / "flow.relavium.yaml", SKELETON, [alias])
    assert (workspace / "flow.samples.json").exists()


def test_an_existing_file_is_never_replaced(tree: tuple[Path, Path]) -> None:
    workspace, _ = tree
    (workspace / "flow.samples.json").write_text('{"ctx": {"keep": 1}}', encoding="utf-8")
    refused(workspace / "flow.relavium.yaml", [workspace], "already exists")
    assert (workspace / "flow.samples.json").read_text(encoding="utf-8") == '{"ctx": {"keep": 1}}'


@pytest.mark.parametrize("planted", ["dangling link", "file"])
def test_something_planted_after_the_checks_is_refused_by_o_excl(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, planted: str
) -> None:
    """The race: the name is free when checked, taken when opened. O_EXCL|O_NOFOLLOW decide."""
    workspace, outside = tree
    name = workspace / "flow.samples.json"
    aim = outside / "planted"
    checked = new_files.within

    def check_then_plant(path: Path, roots: object) -> bool:
        answer = checked(path, roots)  # type: ignore[arg-type]
        if planted == "file":
            name.write_text("theirs", encoding="utf-8")
        else:
            name.symlink_to(aim)
        return answer

    monkeypatch.setattr(new_files, "within", check_then_plant)
    refused(workspace / "flow.relavium.yaml", [workspace], "")
    assert not aim.exists()
    if planted == "file":
        assert name.read_text(encoding="utf-8") == "theirs"
    else:
        assert name.is_symlink()


def test_a_missing_folder_is_a_clear_error(tree: tuple[Path, Path]) -> None:
    workspace, _ = tree
    refused(workspace / "gone" / "flow.relavium.yaml", [workspace], "cannot write")


def test_no_write_follows_a_link_even_when_nothing_else_checks(tree: tuple[Path, Path]) -> None:
    """The final open alone refuses a link: O_NOFOLLOW|O_EXCL, whatever the roots say."""
    workspace, outside = tree
    (workspace / "flow.samples.json").symlink_to(outside / "x")
    refused(workspace / "flow.relavium.yaml", [Path(os.sep)], "symbolic link")
    assert not (outside / "x").exists()
