"""`check` on a folder it cannot list says so, naming the folder, and exits 2, as an unreadable
file does (issue 21: it used to pass the folder over and exit 0). Run through the real command
line; the other files are still checked."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from analysis.project.files import walk_workflow_files
from tests.conftest import CLEAN_WORKFLOW, relavium_lsp

# Root reads any folder whatever its mode.
needs_permissions = pytest.mark.skipif(os.geteuid() == 0, reason="root reads a 000 folder")
SEGMENT = "d" * 250


def check(*args: str, cwd: Path) -> tuple[int, str]:
    result = relavium_lsp("check", *args, cwd=cwd)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stderr


@pytest.fixture
def checkout(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "ok.relavium.yaml").write_text(CLEAN_WORKFLOW, encoding="utf-8")
    yield tmp_path
    for folder in tmp_path.iterdir():
        if folder.is_dir():
            folder.chmod(0o755)  # so pytest can remove it


@pytest.fixture
def locked(checkout: Path) -> Path:
    """`checkout/locked`, holding a workflow, with no permission to list or enter it."""
    folder = checkout / "locked"
    folder.mkdir()
    (folder / "hidden.relavium.yaml").write_text(CLEAN_WORKFLOW, encoding="utf-8")
    folder.chmod(0)
    return folder


@needs_permissions
def test_a_folder_without_read_permission_exits_2_and_is_named(checkout: Path,
                                                                locked: Path) -> None:
    code, stderr = check(".", cwd=checkout)
    assert code == 2
    assert ("relavium-lsp check: locked: cannot read this folder (Permission denied); its files "
            "were not checked") in stderr.splitlines()
    assert "1 file checked: 0 errors, 0 warnings" in stderr


@needs_permissions
def test_the_named_folder_itself_unreadable_exits_2(checkout: Path, locked: Path) -> None:
    code, stderr = check("locked", "ok.relavium.yaml", cwd=checkout)
    assert code == 2
    # Looking for its configuration inside it is the first read that fails.
    assert (f"relavium-lsp check: locked: permission denied ({locked.resolve()}"
            "/.relavium-lsp.toml)") in stderr.splitlines()
    assert "no workflow files found" not in stderr
    assert "1 file checked: 0 errors, 0 warnings" in stderr


@needs_permissions
def test_a_file_inside_a_folder_this_user_cannot_enter_exits_2(checkout: Path,
                                                                locked: Path) -> None:
    code, stderr = check("locked/hidden.relavium.yaml", cwd=checkout)
    assert code == 2
    assert "locked/hidden.relavium.yaml: permission denied" in stderr


def deep_folder(root: Path) -> Path:
    """A folder nested so deep that its path is longer than the system allows a path to be
    (PATH_MAX, 4096 bytes on Linux): made one level at a time relative to the last, it exists,
    but the walk cannot list it by its path (ENAMETOOLONG) — as any user, root included."""
    top = root / "deep"
    top.mkdir()
    descriptor = os.open(top, os.O_RDONLY)
    try:
        for _ in range(4096 // len(SEGMENT) + 1):
            os.mkdir(SEGMENT, dir_fd=descriptor)
            inner = os.open(SEGMENT, os.O_RDONLY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
        workflow = os.open("lost.relavium.yaml", os.O_WRONLY | os.O_CREAT, 0o644,
                           dir_fd=descriptor)
        os.write(workflow, CLEAN_WORKFLOW.encode())
        os.close(workflow)
    finally:
        os.close(descriptor)
    return top


@pytest.fixture
def too_deep(checkout: Path) -> Iterator[Path]:
    top = deep_folder(checkout)
    yield top
    shutil.rmtree(top)  # by descriptors, so the long path is no obstacle


def test_a_folder_too_deep_to_list_exits_2_and_is_named(checkout: Path, too_deep: Path) -> None:
    code, stderr = check(".", cwd=checkout)
    assert code == 2
    (said,) = [line for line in stderr.splitlines() if "cannot read this folder" in line]
    assert said.startswith(f"relavium-lsp check: deep/{SEGMENT}/")
    assert said.endswith(": cannot read this folder (File name too long); its files were not "
                         "checked")
    assert "1 file checked: 0 errors, 0 warnings" in stderr


def test_the_walk_lists_a_folder_it_could_not_read(checkout: Path, too_deep: Path) -> None:
    walk = walk_workflow_files(checkout)
    assert walk.files == [checkout / "ok.relavium.yaml"]
    (said,) = walk.unreadable
    assert said.startswith(f"{too_deep}/{SEGMENT}/")
    assert len(said.split(":", 1)[0]) > 4096


def test_a_named_link_loop_exits_2_with_the_reason(checkout: Path) -> None:
    (checkout / "loop").symlink_to("loop")
    code, stderr = check("loop", ".", cwd=checkout)
    assert code == 2
    assert "relavium-lsp check: loop: too many levels of symbolic links" in stderr
    assert "1 file checked" in stderr
