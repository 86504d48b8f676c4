"""`check`'s text output never hands a terminal or CI log a raw control character, and its
excerpts stay short however long the line (issue 9, item 8). Every C0, C1 and bidi control is
tried in each place text comes from: a message quoting a YAML value, a source excerpt, a file
name. Run through the real command line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from analysis.document.display import MAX_EXCERPT_COLUMNS, MAX_MESSAGE_CHARS
from tests.conftest import relavium_lsp

BIDI = [chr(code) for code in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
                               *range(0x2066, 0x206A))]
C0 = [chr(code) for code in range(0x20) if chr(code) != "\t"]
C1 = [chr(code) for code in range(0x7F, 0xA0)]
LINE_SEPARATORS = ["\u2028", "\u2029"]
ALL_CONTROLS = C0 + C1 + BIDI + LINE_SEPARATORS


def escaped(ch: str) -> str:
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def check(*args: str) -> subprocess.CompletedProcess[str]:
    return relavium_lsp("check", *args, errors="surrogateescape")


def raw_controls(text: str) -> set[str]:
    """Control characters in the output other than the line breaks that end its lines."""
    return {ch for ch in text if ch in ALL_CONTROLS and ch != "\n"}


def workflow_quoting(value: str) -> str:
    """A workflow whose id and type errors quote `value` (as a YAML escape, so that any
    character, even one YAML forbids raw, reaches the message)."""
    return (
        "schema_version: '1.0'\nworkflow:\n  id: demo\n  nodes:\n"
        "    - { id: start, type: input }\n"
        f'    - {{ id: "b{value}", type: "x{value}" }}\n'
        f'  edges: [{{ from: start, to: "z{value}" }}]\n'
    )


def yaml_escape(ch: str) -> str:
    return f"\\u{ord(ch):04x}"


def test_controls_quoted_in_messages_are_escaped(tmp_path: Path) -> None:
    for index, ch in enumerate(ALL_CONTROLS):
        (tmp_path / f"m{index:03}.relavium.yaml").write_text(
            workflow_quoting(yaml_escape(ch)), encoding="utf-8")
    result = check(str(tmp_path))
    assert result.returncode == 1
    assert raw_controls(result.stdout + result.stderr) == set()
    for ch in ALL_CONTROLS:
        assert f"'x{escaped(ch)}'" in result.stdout, ch


def test_the_terminal_title_and_clear_screen_escapes_from_the_issue(tmp_path: Path) -> None:
    (tmp_path / "t.relavium.yaml").write_text(workflow_quoting("\\e]0;pwned\\a\\e[2J"),
                                              encoding="utf-8")
    result = check(str(tmp_path / "t.relavium.yaml"))
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "'x\\x1b]0;pwned\\x07\\x1b[2J'" in result.stdout


def test_raw_controls_in_excerpts_are_escaped_and_the_caret_still_lines_up(
    tmp_path: Path,
) -> None:
    """Raw in the file: YAML refuses most of them (yaml-syntax) and takes the rest (the bidi
    controls, NEL) into a value; either way the line is shown as an excerpt."""
    for index, ch in enumerate(ch for ch in ALL_CONTROLS if ch not in "\n\r"):
        (tmp_path / f"e{index:03}.relavium.yaml").write_text(
            f"schema_version: '1.0{ch}'\n"
            "workflow: { id: demo, nodes: [{ id: start, type: input }], edges: [] }\n",
            encoding="utf-8")
    result = check(str(tmp_path))
    assert result.returncode == 1
    assert raw_controls(result.stdout + result.stderr) == set()
    excerpts = [line for line in result.stdout.splitlines() if line.startswith("  schema")]
    for ch in ALL_CONTROLS:
        if ch not in "\n\r":
            assert f"  schema_version: '1.0{escaped(ch)}'" in excerpts, ch
    # A bidi control is accepted raw and reported on the value: the caret spans the escape.
    lines = result.stdout.splitlines()
    rlo = lines.index("  schema_version: '1.0\\u202e'")
    assert lines[rlo + 1] == "  " + " " * len("schema_version: ") + "^" + "~" * 10


def test_controls_in_file_names_are_escaped(tmp_path: Path) -> None:
    names = [ch for ch in ALL_CONTROLS if ch not in "\x00"]  # a name cannot hold NUL
    for ch in names:
        (tmp_path / f"f{ch}.relavium.yaml").write_text("schema_version: '2.0'\n",
                                                      encoding="utf-8")
    result = check(str(tmp_path))
    assert result.returncode == 1
    assert raw_controls(result.stdout + result.stderr) == set()
    for ch in names:
        assert f"f{escaped(ch)}.relavium.yaml:1:" in result.stdout, ch


def test_controls_in_names_in_notes_and_io_errors_are_escaped(tmp_path: Path) -> None:
    result = check(str(tmp_path / "missing\x1b[2J\u202e.relavium.yaml"))
    assert result.returncode == 2
    assert raw_controls(result.stderr) == set()
    assert "missing\\x1b[2J\\u202e.relavium.yaml: no such file" in result.stderr


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_an_excerpt_of_a_long_line_is_clipped_around_the_finding(
    tmp_path: Path, where: str
) -> None:
    padding = "x" * 500_000
    entries = {"start": ["target: 1", f"pad: '{padding}'"],
               "middle": [f"pad: '{padding}'", "target: 1", f"more: '{padding}'"],
               "end": [f"pad: '{padding}'", "target: 1"]}[where]
    path = tmp_path / "long.relavium.yaml"
    path.write_text(f"{{ {', '.join(entries)} }}\n", encoding="utf-8")
    result = check(str(path))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert all(len(line) <= 2 + MAX_MESSAGE_CHARS + len(str(path)) + 60 for line in lines)
    header = next(index for index, line in enumerate(lines) if "unknown key 'target'" in line)
    excerpt, caret = lines[header + 1], lines[header + 2]
    assert len(excerpt) <= 2 + 1 + MAX_EXCERPT_COLUMNS + 1
    assert excerpt.startswith("  …") is (where != "start")
    assert excerpt.endswith("…") is (where != "end")
    assert excerpt[caret.index("^"):].startswith("target: 1")
    assert caret.endswith("^~~~~~")


def test_a_message_quoting_a_long_value_is_clipped_in_the_middle(tmp_path: Path) -> None:
    path = tmp_path / "long.relavium.yaml"
    path.write_text(f"schema_version: '{'x' * 100_000}'\n", encoding="utf-8")
    result = check(str(path))
    header = next(line for line in result.stdout.splitlines() if "invalid-value" in line)
    message = header.split(" invalid-value ", 1)[1]
    assert len(message) == MAX_MESSAGE_CHARS
    assert message.startswith("schema_version must be the string '1.0', not the string 'xxx")
    assert "…" in message
    assert message.endswith("; write schema_version: '1.0'")
