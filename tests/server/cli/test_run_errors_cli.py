"""`relavium-lsp run FILE`'s note of the file's errors: the run evaluates the model alone
(`analysis.dryrun.workflow_model`) and the full analysis counts the errors in a forked child
(`server.cli.run_errors`) — the count is `check`'s, suppressions and typed checks included, and
when there is no fork or the child gives no answer, the count is found in process all the same."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import run_errors
from server.cli.run_errors import ErrorsAside
from tests.conftest import FIXTURES

# errors of a typed check, of a graph rule, of a template rule: each found by the full analysis
ERRONEOUS = ("read-of-absent-value", "unknown-node", "template-filter-type")


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server", *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def errors_check_finds(path: Path) -> int:
    listed = json.loads(cli("check", path, "--format", "json").stdout)
    return sum(1 for diagnostic in listed if diagnostic["severity"] == "error")


def copied(rule: str, folder: Path) -> Path:
    # copied out of the repository, whose configuration excludes the fixtures from `check`
    return Path(shutil.copy(FIXTURES / "rules" / rule / "positive.relavium.yaml",
                            folder / f"{rule}.relavium.yaml"))


@pytest.mark.parametrize("rule", ERRONEOUS)
def test_the_note_counts_the_errors_check_finds(rule: str, tmp_path: Path) -> None:
    workflow = copied(rule, tmp_path)
    errors = errors_check_finds(workflow)
    assert errors > 0
    note = (f"the workflow has {errors} error(s) (see `relavium-lsp check`): the engine would "
            "refuse to load it; this shows what its deterministic part would do anyway")
    answer = json.loads(cli("run", workflow, "--format", "json").stdout)
    assert answer["notes"][0] == note
    assert f"note: {note}" in cli("run", workflow).stderr


def test_a_suppressed_error_is_not_counted(tmp_path: Path) -> None:
    workflow = copied("unknown-node", tmp_path)
    before = errors_check_finds(workflow)
    edge = "    - { from: strat, to: route }"
    text = workflow.read_text(encoding="utf-8")
    assert edge in text
    workflow.write_text(text.replace(edge, edge + "  # relavium-lsp: ignore[unknown-node]"),
                        encoding="utf-8")
    after = errors_check_finds(workflow)
    assert after == before - 1
    notes = json.loads(cli("run", workflow, "--format", "json").stdout)["notes"]
    assert notes[0].startswith(f"the workflow has {after} error(s) ")


def erroneous_text(tmp_path: Path) -> tuple[str, str, int]:
    workflow = copied("unknown-node", tmp_path)
    return workflow.read_text(encoding="utf-8"), str(workflow), errors_check_finds(workflow)


def test_without_a_fork_the_count_is_found_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text, path, errors = erroneous_text(tmp_path)
    monkeypatch.delattr(os, "fork")
    assert ErrorsAside(text, path).count() == errors


def test_a_child_that_gives_no_answer_is_counted_again_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text, path, errors = erroneous_text(tmp_path)
    parent, counted = os.getpid(), run_errors._counted

    def dies_in_the_child(text: str, path: str) -> int:
        if os.getpid() != parent:
            raise MemoryError  # the child ends without writing a count
        return counted(text, path)

    monkeypatch.setattr(run_errors, "_counted", dies_in_the_child)
    assert ErrorsAside(text, path).count() == errors


def test_an_abandoned_count_stops_its_child(tmp_path: Path) -> None:
    text, path, _ = erroneous_text(tmp_path)
    aside = ErrorsAside(text, path)
    child = aside._child
    assert child is not None
    aside.abandon()
    with pytest.raises(ChildProcessError):  # killed and reaped: no process left behind
        os.waitpid(child, os.WNOHANG)
