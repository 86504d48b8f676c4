"""The README's set-up and tour, verbatim: `./scripts/try` in a fresh copy of the repository,
then the tour's commands in a shell whose PATH does not know `relavium-lsp` yet (as a new user's
does not). This is the path a new user takes; it installs the tool into `.venv-tool/` (a minute)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, relavium_lsp

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def tour_commands() -> str:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## A 30-second tour", 1)[1]
    match = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert match
    return match.group(1)


def copy_of_the_repository(destination: Path) -> Path:
    """The tracked files as they are in the working tree (what a clone would hold)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, check=True,
                            capture_output=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO_ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def path_without_the_tool() -> str:
    return os.pathsep.join(
        entry for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry and not (Path(entry) / "relavium-lsp").exists())


def test_the_tour_works_verbatim_right_after_scripts_try(tmp_path: Path) -> None:
    repo = copy_of_the_repository(tmp_path / "relavium-lsp")
    env = {**os.environ, "PATH": path_without_the_tool()}
    env.pop("VIRTUAL_ENV", None)
    setup = subprocess.run(["./scripts/try"], cwd=repo, env=env, capture_output=True, text=True,
                           timeout=900)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    assert f"relavium-lsp is installed at {repo}/.venv-tool/bin/relavium-lsp" in setup.stdout
    assert f'export PATH="{repo}/.venv-tool/bin:$PATH"' in setup.stdout
    assert "3 files checked: 0 errors" in setup.stderr  # two workflows, one agent file

    tour = subprocess.run(["bash", "-e", "-c", tour_commands()], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)
    assert tour.returncode == 0, tour.stdout + tour.stderr
    assert "command not found" not in tour.stderr
    assert json.loads((repo / "workflow.schema.json").read_text(encoding="utf-8"))["$schema"] == (
        "http://json-schema.org/draft-07/schema#")
    sarif = json.loads((repo / "out.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["results"] == []
    assert "[\n  2,\n  4\n]\n" in tour.stdout  # the eval line's value


def text_block_after(marker: str) -> str:
    """The first ```text block after `marker` in the README's tour."""
    section = tour_section()
    match = re.search(r"```text\n(.*?)```", section[section.index(marker):], re.DOTALL)
    assert match
    return match.group(1)


def tour_section() -> str:
    return (REPO_ROOT / "README.md").read_text(encoding="utf-8").split("## A 30-second tour")[1]


def test_the_tours_dry_run_lines_are_the_examples_output() -> None:
    shown = text_block_after("A dry run uses the samples file").splitlines()
    ran = relavium_lsp("run", "examples/ticket-triage.relavium.yaml", cwd=REPO_ROOT)
    assert ran.returncode == 0, ran.stderr
    assert set(shown) <= set(ran.stdout.splitlines())
    assert "escalate (human_gate) skipped: upstream \"topic\" was skipped" in shown


def test_the_tours_broken_copy_shows_the_leaked_branch_finding_exactly() -> None:
    shown = text_block_after("`examples/broken/` keeps that mistake")
    checked = relavium_lsp("check", "--no-config", "examples/broken/", cwd=REPO_ROOT)
    assert checked.returncode == 0, checked.stderr  # a warning only
    assert checked.stdout == shown
    assert "warning leaked-branch `escalate`" in shown
