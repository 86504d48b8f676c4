"""`relavium-lsp check --fix | --unsafe-fixes | --diff` through the real command line: every rule
fixture with a fix is fixed and re-checked, fixes compose, `--diff` writes nothing, and what must
not be written (excluded, linked out of the tree, read-only, not a regular file) is not."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from analysis.checks.analyze import analyze
from analysis.checks.apply_fixes import applicable
from tests.analysis.checks.test_fixes import DOTTED
from tests.analysis.checks.test_rule_docs import SECTIONS, example_and_fix
from tests.conftest import CLEAN_WORKFLOW, FIXTURES, REPO_ROOT


def corpus() -> dict[str, str]:
    """Name → text: every rule fixture, every docs/rules.md example, and the one fix no fixture
    shows (invalid-template's bracket form)."""
    texts = {f"{path.parent.name}/{path.name.split('.')[0]}": path.read_text("utf-8")
             for path in sorted((FIXTURES / "rules").glob("*/*.relavium.yaml"))}
    texts.update({f"docs/{rule}": example_and_fix(section)[0]
                  for rule, section in SECTIONS.items()})
    texts["invalid-template/dotted-output-read"] = DOTTED
    return texts


def _fixable(texts: dict[str, str]) -> dict[str, str]:
    return {name: text for name, text in texts.items()
            if any(applicable(d, unsafe=True) for d in analyze(text).diagnostics)}


_ALL_FIXABLE = _fixable(corpus())
# A docs example only for a rule whose fixtures show no fix (each case runs the CLI four times).
FIXABLE = {name: text for name, text in _ALL_FIXABLE.items() if not name.startswith("docs/")
           or not any(other.startswith(name.removeprefix("docs/") + "/")
                      for other in _ALL_FIXABLE)}
# Findings a fix lets the checks see, not findings it makes: renaming the fixture's `budgte` to
# `budget` has the schema walk read the block, which lacks its required `max_cost_microcents`.
REVEALED = {"unknown-key/positive": Counter({"missing-field": 1}),
            # the node id fixed, its output (the inputs, an object) is written without `| json`
            "unknown-template-reference/positive": Counter({"template-filter-type": 1})}


def cli(*args: str, stdin: bytes | None = None, cwd: Path | None = None
        ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "server", "check", *args], input=stdin,
                          capture_output=True, timeout=120, cwd=cwd)


def rules_reported(path: Path) -> Counter[str]:
    result = cli("--format", "json", "--no-config", str(path))
    return Counter(finding["code"] for finding in json.loads(result.stdout))


def test_there_are_fixtures_to_fix() -> None:
    # The parametrised test below must not pass by finding nothing to fix.
    assert {name.split("/")[0] for name in FIXABLE} >= {
        "template-in-expression", "unknown-node", "unknown-key", "reserved-expression-type",
        "invalid-template"}


@pytest.mark.parametrize("name", sorted(FIXABLE))
def test_every_fix_removes_its_finding_adds_none_and_is_idempotent(
    name: str, tmp_path: Path
) -> None:
    path = tmp_path / "fixture.relavium.yaml"
    original = FIXABLE[name].encode()
    path.write_bytes(original)
    before = analyze(original.decode()).diagnostics
    safe = [d.rule for d in before if applicable(d, unsafe=False)]

    cli("--fix", "--no-config", str(path))
    # --fix alone makes the safe fixes only.
    assert (path.read_bytes() != original) == bool(safe)

    result = cli("--fix", "--unsafe-fixes", "--no-config", str(path))
    fixed = path.read_bytes()
    assert fixed != original
    after = analyze(fixed.decode()).diagnostics
    assert not [d for d in after if applicable(d, unsafe=True)], "a fixed point is reached"
    targeted = Counter(d.rule for d in before if applicable(d, unsafe=True))
    # Each finding a fix targeted is gone, and no finding appears that was not there before.
    new = Counter(d.rule for d in after) - (Counter(d.rule for d in before) - targeted)
    assert new == REVEALED.get(name, Counter())
    assert rules_reported(path) == Counter(d.rule for d in after)
    assert b"errors" in result.stderr and b"fixed" in result.stderr

    again = cli("--fix", "--unsafe-fixes", "--no-config", str(path))
    assert path.read_bytes() == fixed
    assert b", 0 fixed" in again.stderr


TEMPLATED = """\
schema_version: '1.0'
workflow:
  id: demo
  inputs:
    - { name: team, type: string }
  nodes:
    - { id: start, type: input }
    - id: route
      type: condition
      expression: "{{ inputs.team }} === 'eu' || {{ inputs.team }} === 'us'"
      branches:
        - { when: true, target_node: done }
    - id: shape
      type: transform
      transform: "{{ inputs.team }}"
    - { id: done, type: output }
  edges:
    - { from: start, to: route }
    - { from: start, to: shape }
    - { from: shape, to: done }
"""


def test_several_fixes_in_one_file_compose(tmp_path: Path) -> None:
    path = tmp_path / "t.relavium.yaml"
    path.write_text(TEMPLATED, encoding="utf-8")
    result = cli("--fix", str(path))
    text = path.read_text(encoding="utf-8")
    assert 'expression: "inputs.team === \'eu\' || inputs.team === \'us\'"' in text
    assert 'transform: "inputs.team"' in text
    assert result.returncode == 0, result.stderr
    assert b"1 file checked: 0 errors, 0 warnings, 3 fixed" in result.stderr


def test_safe_and_unsafe_fixes_of_different_rules_compose(tmp_path: Path) -> None:
    path = tmp_path / "t.relavium.yaml"
    typo = TEMPLATED.replace("{ from: shape, to: done }", "{ from: shape, to: doen }")
    path.write_text(typo, encoding="utf-8")
    cli("--fix", str(path))
    safe_only = path.read_text(encoding="utf-8")
    assert "to: doen" in safe_only and "{{" not in safe_only
    result = cli("--fix", "--unsafe-fixes", str(path))
    assert path.read_text(encoding="utf-8") == TEMPLATED.replace("{{ inputs.team }}",
                                                                 "inputs.team")
    assert b"0 errors, 0 warnings, 1 fixed" in result.stderr


def test_diff_prints_the_change_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t.relavium.yaml"
    path.write_text(TEMPLATED, encoding="utf-8")
    result = cli("--diff", str(path))
    assert result.returncode == 1
    assert path.read_text(encoding="utf-8") == TEMPLATED
    out = result.stdout.decode()
    assert out.startswith(f"--- {path}\n+++ {path}\n@@ ")
    assert '+      transform: "inputs.team"\n' in out
    assert '-      transform: "{{ inputs.team }}"\n' in out
    assert b"3 fixes would be made" in result.stderr


def test_diff_of_a_clean_file_is_empty_and_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "t.relavium.yaml"
    path.write_text(CLEAN_WORKFLOW, encoding="utf-8")
    result = cli("--diff", str(path))
    assert (result.returncode, result.stdout) == (0, b"")


def test_diff_leaves_out_unsafe_fixes_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "t.relavium.yaml"
    path.write_bytes((FIXTURES / "rules/unknown-node/positive.relavium.yaml").read_bytes())
    assert cli("--diff", str(path)).returncode == 0
    assert cli("--diff", "--unsafe-fixes", str(path)).returncode == 1


def test_unsafe_fixes_alone_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "t.relavium.yaml"
    path.write_text(TEMPLATED, encoding="utf-8")
    result = cli("--unsafe-fixes", str(path))
    assert result.returncode == 2
    assert b"--unsafe-fixes needs --fix or --diff" in result.stderr
    assert path.read_text(encoding="utf-8") == TEMPLATED


def test_line_breaks_byte_order_mark_and_mode_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "t.relavium.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + TEMPLATED.replace("\n", "\r\n").encode())
    path.chmod(0o640)
    assert cli("--fix", str(path)).returncode == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert data.count(b"\r\n") == TEMPLATED.count("\n") and b"\n" not in data.replace(b"\r\n", b"")
    assert b'transform: "inputs.team"' in data
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["t.relavium.yaml"], "no temporary file left"


def test_an_excluded_file_is_never_touched(tmp_path: Path) -> None:
    (tmp_path / ".relavium-lsp.toml").write_text('extend-exclude = ["drafts/"]\n')
    (tmp_path / "drafts").mkdir()
    excluded = tmp_path / "drafts" / "t.relavium.yaml"
    checked = tmp_path / "t.relavium.yaml"
    for path in (excluded, checked):
        path.write_text(TEMPLATED, encoding="utf-8")
    cli("--fix", str(tmp_path))
    cli("--fix", str(excluded))
    assert excluded.read_text(encoding="utf-8") == TEMPLATED
    assert checked.read_text(encoding="utf-8") != TEMPLATED


def test_a_link_out_of_the_checked_folder_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.relavium.yaml"
    outside.write_text(TEMPLATED, encoding="utf-8")
    tree = tmp_path / "tree"
    tree.mkdir()
    link = tree / "link.relavium.yaml"
    link.symlink_to(outside)
    result = cli("--fix", str(link))
    assert result.returncode == 2
    assert b"not fixed: a symbolic link to a file outside the checked folder" in result.stderr
    assert outside.read_text(encoding="utf-8") == TEMPLATED
    assert link.is_symlink()
    # --diff shows what --fix would write: nothing here.
    diff = cli("--diff", str(link))
    assert (diff.returncode, diff.stdout) == (2, b"")


def test_a_link_inside_the_folder_is_fixed_in_its_target_and_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "real.relavium.yaml"
    target.write_text(TEMPLATED, encoding="utf-8")
    link = tmp_path / "link.relavium.yaml"
    link.symlink_to(target.name)
    assert cli("--fix", str(link)).returncode == 0
    assert link.is_symlink()
    assert 'transform: "inputs.team"' in target.read_text(encoding="utf-8")


def test_a_read_only_file_is_reported_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "t.relavium.yaml"
    path.write_text(TEMPLATED, encoding="utf-8")
    path.chmod(0o444)
    result = cli("--fix", str(path))
    assert result.returncode == 2
    assert b"not fixed: the file is read-only" in result.stderr
    assert path.read_text(encoding="utf-8") == TEMPLATED


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_pipe_is_checked_but_never_written(tmp_path: Path) -> None:
    fifo = tmp_path / "t.relavium.yaml"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat > '{fifo}'"], stdin=subprocess.PIPE)
    process = subprocess.Popen([sys.executable, "-m", "server", "check", "--fix", str(fifo)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert writer.stdin is not None
    writer.stdin.write(TEMPLATED.encode())
    writer.stdin.close()
    writer.wait(timeout=60)
    _, err = process.communicate(timeout=120)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert process.returncode == 2
    assert b"not fixed: not a regular file" in err


def test_fix_on_stdin_prints_the_fixed_text(tmp_path: Path) -> None:
    result = cli("--fix", "-", stdin=TEMPLATED.encode())
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == TEMPLATED.replace("{{ inputs.team }}", "inputs.team")
    assert b"1 file checked: 0 errors, 0 warnings, 3 fixed" in result.stderr


def test_stdin_with_files_under_fix_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "t.relavium.yaml"
    path.write_text(TEMPLATED, encoding="utf-8")
    result = cli("--fix", "-", str(path), stdin=b"")
    assert result.returncode == 2
    assert path.read_text(encoding="utf-8") == TEMPLATED


TABLE_ROW = re.compile(
    r"^\| \[([a-z-]+)\]\(rules\.md#\1\) \| [^|]+ \| (safe/unsafe|safe|unsafe)\b", re.MULTILINE)


def test_the_docs_table_lists_every_rule_that_fixes_and_how_safely() -> None:
    documented = dict(TABLE_ROW.findall((REPO_ROOT / "docs" / "cli.md").read_text("utf-8")))
    attached: dict[str, set[str]] = {}
    for text in corpus().values():
        for diagnostic in analyze(text).diagnostics:
            for offered in diagnostic.fixes:
                attached.setdefault(diagnostic.rule, set()).add(
                    "safe" if offered.safe else "unsafe")
    assert documented == {rule: "/".join(sorted(kinds)) for rule, kinds in attached.items()}


def test_a_rule_turned_off_in_the_configuration_is_not_fixed(tmp_path: Path) -> None:
    (tmp_path / ".relavium-lsp.toml").write_text('[rules]\ntemplate-in-expression = "off"\n')
    path = tmp_path / "t.relavium.yaml"
    path.write_text(TEMPLATED, encoding="utf-8")
    result = cli("--fix", str(path))
    assert path.read_text(encoding="utf-8") == TEMPLATED
    assert b", 0 fixed" in result.stderr


def test_diff_of_stdin_prints_the_diff() -> None:
    result = cli("--diff", "-", stdin=TEMPLATED.encode())
    assert result.returncode == 1
    assert result.stdout.decode().startswith("--- <stdin>\n+++ <stdin>\n@@ ")
    assert cli("--diff", "-", stdin=CLEAN_WORKFLOW.encode()).returncode == 0
