"""The `relavium-lsp-check` pre-commit hook, run by the real `pre-commit try-repo` on a temporary
git repository (pre-commit installs this checkout into a hook environment of its own)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import CLEAN_WORKFLOW, FIXTURES, REPO_ROOT

HOOK_ID = "relavium-lsp-check"
FIX_HOOK_ID = "relavium-lsp-fix"
CLEAN = CLEAN_WORKFLOW
BROKEN = CLEAN.replace("type: input }", "type: input, colour: red }")
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")

needs_pre_commit = pytest.mark.skipif(
    not PRE_COMMIT.exists() or shutil.which("git") is None, reason="needs pre-commit and git")
AGENT = (FIXTURES / "agents" / "engine" / "spec-example.agent.yaml").read_text(encoding="utf-8")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, timeout=60,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"})


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One hook environment for the module: pre-commit installs the checkout once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(repo: Path, home: Path, hook_id: str = HOOK_ID) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(REPO_ROOT), hook_id, "--all-files", "--verbose"],
        cwd=repo, capture_output=True, text=True, timeout=900,
        env={**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"},
    )


def make_repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    git(root, "init", "-q")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "workflows")
    return root


def test_the_hook_selects_the_files_that_have_a_kind() -> None:
    """pre-commit matches `files` and `exclude` with Python's `re.search` on the repository-relative
    path: selected exactly when `analysis.project.kinds.file_kind` gives the path a kind."""
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [hook["id"] for hook in hooks] == [HOOK_ID, FIX_HOOK_ID]
    cases = json.loads((FIXTURES / "file-kinds.json").read_text(encoding="utf-8"))["cases"]
    for hook in hooks:
        wrong = [path for path, kind in cases
                 if bool(re.search(hook["files"], path) and not re.search(hook["exclude"], path))
                 is not (kind is not None)]
        assert wrong == [], hook["id"]


def test_the_fix_hook_runs_check_with_fix() -> None:
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    [fix_hook] = [hook for hook in hooks if hook["id"] == FIX_HOOK_ID]
    assert fix_hook["entry"] == "relavium-lsp check --fix"


@needs_pre_commit
def test_the_hook_fails_on_a_broken_workflow_and_names_it(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {
        "flows/ok.relavium.yaml": CLEAN,
        "flows/bad.relavium.yml": BROKEN,
        ".relavium/nested/also-bad.yaml": BROKEN,
        ".relavium/nested/also-bad.samples.yaml": "inputs: [not, a, scope]\n",
        "notes/other.yaml": "not: [a workflow\n",
    })
    result = try_repo(repo, pre_commit_home)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "flows/bad.relavium.yml:5:" in output
    assert ".relavium/nested/also-bad.yaml:5:" in output
    assert "unknown-key" in output
    # Neither the sidecar nor YAML outside the patterns reach the hook.
    assert "samples" not in output.split("relavium-lsp check", 1)[-1]
    assert "other.yaml" not in output
    assert "3 files checked: 2 errors" in output


@needs_pre_commit
def test_the_hook_passes_on_clean_workflows(tmp_path: Path, pre_commit_home: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"ok.relavium.yaml": CLEAN,
                                         ".relavium/agents/summarizer.yaml": AGENT,
                                         "relavium-lsp.toml": 'extend-exclude = ["wip/"]\n',
                                         "wip/draft.relavium.yaml": BROKEN})
    result = try_repo(repo, pre_commit_home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout


TEMPLATED = CLEAN.replace("type: input }", "type: input }\n    - { id: t, type: transform, "
                          "transform: '{{ inputs.x }}' }")


@needs_pre_commit
def test_the_fix_hook_fixes_fails_the_commit_then_passes(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {"flow.relavium.yaml": TEMPLATED})
    first = try_repo(repo, pre_commit_home, FIX_HOOK_ID)
    # pre-commit fails a hook that changed files, so the author reviews and stages the fixes.
    assert first.returncode == 1, first.stdout + first.stderr
    fixed = (repo / "flow.relavium.yaml").read_text(encoding="utf-8")
    assert "transform: 'inputs.x'" in fixed
    git(repo, "add", "-A")
    second = try_repo(repo, pre_commit_home, FIX_HOOK_ID)
    assert (repo / "flow.relavium.yaml").read_text(encoding="utf-8") == fixed
    assert "1 fixed" not in second.stdout + second.stderr
