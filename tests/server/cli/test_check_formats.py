"""The output formats docs/cli.md documents, checked against the real command line: the
documented example's outputs are taken from the document itself, so the two cannot drift."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CLEAN_WORKFLOW, REPO_ROOT, relavium_lsp

CLI_DOC = (REPO_ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def doc_block(after_heading: str, language: str) -> str:
    """The first fenced block of `language` after a heading of docs/cli.md."""
    section = CLI_DOC.split(after_heading, 1)[1]
    match = re.search(rf"```{language}\n(.*?)```", section, re.DOTALL)
    assert match, f"no {language} block after {after_heading!r}"
    return match.group(1)


def check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return relavium_lsp("check", *args, cwd=cwd)


@pytest.fixture
def example(tmp_path: Path) -> Path:
    (tmp_path / "example.relavium.yaml").write_text(
        doc_block("Take this file", "yaml"), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("heading", "output_format", "language"), [
    ("### `--format text`", "text", "text"),
    ("### `--format json`", "json", "json"),
    ("### `--format github`", "github", "text"),
])
def test_the_documented_example_output_is_what_check_prints(
    example: Path, heading: str, output_format: str, language: str
) -> None:
    result = check("--format", output_format, "example.relavium.yaml", cwd=example)
    assert result.returncode == 1
    assert result.stdout == doc_block(heading, language)


def test_json_positions_are_0_based_utf16_where_text_is_1_based_code_points(
    example: Path,
) -> None:
    [record] = json.loads(check("--format", "json", "example.relavium.yaml", cwd=example).stdout)
    header = check("example.relavium.yaml", cwd=example).stdout.splitlines()[0]
    line, column = map(int, header.split(":")[1:3])
    source_line = doc_block("Take this file", "yaml").splitlines()[line - 1]
    before = source_line[: column - 1]
    assert record["range"]["start"]["line"] == line - 1
    assert record["range"]["start"]["character"] == len(before.encode("utf-16-le")) // 2
    assert record["range"]["start"]["character"] == column  # 😀 is one extra UTF-16 unit


def test_an_empty_json_report_is_an_empty_array(tmp_path: Path) -> None:
    (tmp_path / "ok.relavium.yaml").write_text(CLEAN_WORKFLOW, encoding="utf-8")
    result = check("--format", "json", ".", cwd=tmp_path)
    assert (result.returncode, json.loads(result.stdout)) == (0, [])


def test_github_commands_escape_what_github_would_parse(tmp_path: Path) -> None:
    name = "a,b:50%\u202e.relavium.yaml"
    (tmp_path / name).write_text(
        "schema_version: '1.0'\nworkflow:\n  id: demo\n  nodes:\n"
        '    - { id: start, type: input, "x%y\\n::error::forged": 1 }\n  edges: []\n',
        encoding="utf-8")
    result = check("--format", "github", ".", cwd=tmp_path)
    assert result.returncode == 1
    [command] = result.stdout.splitlines()
    assert command.startswith("::error file=a%2Cb%3A50%25\\u202e.relavium.yaml,line=5,col=")
    assert ",title=unknown-key::" in command
    # The line break is escaped: the message cannot start a command of its own.
    assert "unknown key 'x%25y\\x0a::error::forged'" in command
    assert "1 file checked: 1 errors" in result.stderr
