"""`check` never reads outside a walked folder, never blocks on or drains a special file, and
checks a size before reading (issue 9, item 6 and the size part of item 8). Run through the real
command line, as CI would run it on a pull request's checkout."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from analysis.document.yaml_profile import MAX_SOURCE_BYTES
from tests.conftest import CLEAN_WORKFLOW, relavium_lsp

SECRET = "sk-live-do-not-print-4711"
CLEAN = CLEAN_WORKFLOW
# A workflow whose diagnostics would quote its text: reading it would print the secret.
LEAKY = f"""\
schema_version: '1.0'
workflow:
  id: demo
  nodes:
    - {{ id: start, type: input, label: {SECRET} }}
  edges: [{{ from: start, to: {SECRET} }}]
"""

needs_symlinks = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")


def check(*args: str, stdin: int | None = subprocess.DEVNULL,
          cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return relavium_lsp("check", *args, stdin=stdin, cwd=cwd,
                        env={**os.environ, "RELAVIUM_TEST_SECRET": SECRET})


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A checked folder with one clean workflow, beside a folder it must never read."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.relavium.yaml").write_text(LEAKY, encoding="utf-8")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "real.relavium.yaml").write_text(CLEAN, encoding="utf-8")
    return root


def assert_skipped(result: subprocess.CompletedProcess[str], name: str, why: str) -> None:
    assert SECRET not in result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{name}: skipped: {why}" in result.stderr
    assert "1 file checked: 0 errors" in result.stderr


@needs_symlinks
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_a_link_to_the_process_environment_is_not_printed(tree: Path) -> None:
    (tree / "leak.relavium.yaml").symlink_to("/proc/self/environ")
    result = check(str(tree))
    assert_skipped(result, "leak.relavium.yaml",
                   "a symbolic link to a file outside the checked folder")


@needs_symlinks
@pytest.mark.parametrize("target", ["../outside/secret.relavium.yaml", "ABSOLUTE"])
def test_a_link_to_a_file_outside_the_walked_folder_is_skipped(tree: Path, target: str) -> None:
    secret = tree.parent / "outside" / "secret.relavium.yaml"
    (tree / "leak.relavium.yaml").symlink_to(secret if target == "ABSOLUTE" else target)
    result = check(str(tree))
    assert_skipped(result, "leak.relavium.yaml",
                   "a symbolic link to a file outside the checked folder")


@needs_symlinks
def test_a_chain_of_links_that_ends_outside_is_skipped(tree: Path) -> None:
    (tree / "hop.yaml").symlink_to("../outside/secret.relavium.yaml")
    (tree / "leak.relavium.yaml").symlink_to("hop.yaml")
    assert_skipped(check(str(tree)), "leak.relavium.yaml",
                   "a symbolic link to a file outside the checked folder")


@needs_symlinks
def test_a_linked_folder_pointing_outside_is_not_descended(tree: Path) -> None:
    (tree / "flows").symlink_to(tree.parent / "outside", target_is_directory=True)
    (tree / ".relavium").symlink_to(tree.parent / "outside", target_is_directory=True)
    result = check(str(tree))
    assert SECRET not in result.stdout + result.stderr
    assert (result.returncode, result.stdout) == (0, "")
    assert "1 file checked" in result.stderr


@needs_symlinks
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null", "/dev/tty"])
def test_a_link_to_a_device_is_skipped(tree: Path, device: str) -> None:
    (tree / "dev.relavium.yaml").symlink_to(device)
    assert_skipped(check(str(tree)), "dev.relavium.yaml", "a symbolic link to a file outside")


@needs_symlinks
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_link_to_a_fifo_inside_the_tree_is_skipped_not_read_forever(tree: Path) -> None:
    os.mkfifo(tree / "pipe")
    (tree / "pipe.relavium.yaml").symlink_to("pipe")
    assert_skipped(check(str(tree)), "pipe.relavium.yaml", "not a regular file")


@needs_symlinks
def test_a_link_to_a_socket_inside_the_tree_is_skipped(tree: Path) -> None:
    import socket

    # A short relative name: a socket path may not exceed ~100 bytes.
    server = socket.socket(socket.AF_UNIX)
    cwd = os.getcwd()
    try:
        os.chdir(tree)
        server.bind("sock")
    finally:
        os.chdir(cwd)
    try:
        (tree / "sock.relavium.yaml").symlink_to("sock")
        assert_skipped(check(str(tree)), "sock.relavium.yaml", "not a regular file")
    finally:
        server.close()


@needs_symlinks
@pytest.mark.parametrize("kind", ["loop", "self", "dangling"])
def test_looping_and_dangling_links_are_skipped(tree: Path, kind: str) -> None:
    if kind == "loop":
        (tree / "a.relavium.yaml").symlink_to("b.relavium.yaml")
        (tree / "b.relavium.yaml").symlink_to("a.relavium.yaml")
    elif kind == "self":
        (tree / "a.relavium.yaml").symlink_to("a.relavium.yaml")
    else:
        (tree / "a.relavium.yaml").symlink_to("missing.yaml")
    result = check(str(tree))
    assert_skipped(result, "a.relavium.yaml", "a dangling or looping symbolic link")


@needs_symlinks
def test_a_link_to_a_workflow_inside_the_tree_is_checked(tree: Path) -> None:
    (tree / "sub").mkdir()
    (tree / "sub" / "broken.yaml").write_text("schema_version: '2.0'\n", encoding="utf-8")
    (tree / "alias.relavium.yaml").symlink_to("sub/broken.yaml")
    result = check(str(tree))
    assert result.returncode == 1
    assert "alias.relavium.yaml:1:" in result.stdout
    assert "skipped" not in result.stderr


@needs_symlinks
def test_a_walk_rooted_at_a_link_judges_links_against_the_folder_it_names(tree: Path) -> None:
    (tree.parent / "link-to-repo").symlink_to(tree, target_is_directory=True)
    (tree / "alias.relavium.yaml").symlink_to(tree / "real.relavium.yaml")
    result = check(str(tree.parent / "link-to-repo"))
    assert (result.returncode, result.stdout) == (0, "")
    assert "2 files checked" in result.stderr


@needs_symlinks
def test_a_file_named_explicitly_is_read_through_its_link(tree: Path) -> None:
    """The user asked for that file: only a walk is confined to its folder."""
    (tree / "leak.relavium.yaml").symlink_to("../outside/secret.relavium.yaml")
    result = check(str(tree / "leak.relavium.yaml"))
    assert result.returncode == 1
    assert SECRET in result.stdout


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_a_special_file_named_explicitly_shows_no_raw_control_characters() -> None:
    result = check("/proc/self/environ")
    assert "\x00" not in result.stdout
    assert all(ch == "\n" or ch == "\t" or ch >= " " for ch in result.stdout + result.stderr)


def test_an_oversized_sparse_file_is_refused_from_its_size_without_reading(tmp_path: Path) -> None:
    """8 GiB of holes: reading it whole would take minutes and the memory; stat takes nothing."""
    huge = tmp_path / "huge.relavium.yaml"
    with huge.open("wb") as handle:
        handle.truncate(8 * 1024**3)
    result = check(str(huge))
    assert result.returncode == 1
    assert f"the file is {8 * 1024**3} bytes long" in result.stdout
    assert "refuses workflow sources over 2 MiB" in result.stdout


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_an_endless_device_named_explicitly_is_refused_after_a_bounded_read(device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"needs {device}")
    result = check(device)
    assert result.returncode == 1
    assert f"error yaml-syntax the file is over {MAX_SOURCE_BYTES} bytes long" in result.stdout
    assert len(result.stdout) < 1000


def test_endless_standard_input_is_refused_after_a_bounded_read() -> None:
    with open("/dev/zero", "rb") as zeros:
        result = check("-", stdin=zeros.fileno())
    assert result.returncode == 1
    assert f"<stdin>:1:1: error yaml-syntax the file is over {MAX_SOURCE_BYTES} bytes" in (
        result.stdout)


def test_a_file_just_over_the_limit_is_refused_and_one_at_the_limit_is_read(
    tmp_path: Path,
) -> None:
    at_limit = tmp_path / "at.relavium.yaml"
    over = tmp_path / "over.relavium.yaml"
    body = "# " + "x" * (MAX_SOURCE_BYTES - 3) + "\n"
    at_limit.write_text(body, encoding="utf-8")
    over.write_text(body + "\n", encoding="utf-8")
    result = check(str(at_limit), str(over))
    assert "over.relavium.yaml:1:1: error yaml-syntax the file is" in result.stdout
    assert "at.relavium.yaml:1:1: error yaml-syntax the file is" not in result.stdout


def test_bytes_that_are_not_utf8_are_an_io_error_that_quotes_no_content(tmp_path: Path) -> None:
    bad = tmp_path / "bad.relavium.yaml"
    bad.write_bytes(b"schema_version: '1.0'\nx: \xff\x1b]0;pwned\x07\n")
    result = check(str(bad))
    assert result.returncode == 2
    assert "cannot read" in result.stderr
    assert "\x1b" not in result.stdout + result.stderr
    assert "pwned" not in result.stdout + result.stderr
