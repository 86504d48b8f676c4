"""`relavium-lsp check`: discovery, stdin, formats and exit codes (in-process and one real run)."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from server.cli.main import main
from tests.conftest import CLEAN_WORKFLOW, EXAMPLES, FIXTURES

BROKEN = """\
schema_version: '1.0'
workflow:
  id: demo
  nodes:
    - { id: start, type: input, label: 'Ünïcode 😀', colour: red }
  edges: []
"""
CLEAN = CLEAN_WORKFLOW
CYCLE = """\
schema_version: '1.0'
workflow:
  id: demo
  nodes:
    - { id: a, type: transform, transform: '1' }
    - { id: b, type: transform, transform: '2' }
  edges: [{ from: a, to: b }, { from: b, to: a }]
"""


def stdin_of(data: bytes) -> io.TextIOWrapper:
    """A standard input that, like the real one, has a binary buffer underneath."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_bundled_example_is_clean_through_the_real_console_script() -> None:
    result = subprocess.run([sys.executable, "-m", "server", "check", str(EXAMPLES)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""
    assert "3 files checked: 0 errors"  # two workflows and an agent file in result.stderr


def test_text_output_has_position_rule_message_source_and_caret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.relavium.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    code, out, _ = run(capsys, str(path))
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"{path}:5:53: error unknown-key ")
    assert lines[1] == "      - { id: start, type: input, label: 'Ünïcode 😀', colour: red }"
    assert lines[2] == "  " + " " * 52 + "^~~~~~"  # under "colour"


def test_json_output_uses_utf16_columns_and_the_documented_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.relavium.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    code, out, _ = run(capsys, "--format", "json", str(path))
    assert code == 1
    [record] = json.loads(out)
    assert set(record) == {"path", "range", "severity", "code", "message", "data"}
    # 😀 is two UTF-16 units, so the code-point column 52 becomes 53.
    assert record["range"] == {"start": {"line": 4, "character": 53},
                               "end": {"line": 4, "character": 59}}
    assert record["severity"] == "error" and record["code"] == "unknown-key"


def test_sarif_output_is_a_code_scanning_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.relavium.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    code, out, _ = run(capsys, "--format", "sarif", str(path))
    assert code == 1
    log = json.loads(out)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    [sarif_run] = log["runs"]
    assert sarif_run["columnKind"] == "utf16CodeUnits"
    rules = sarif_run["tool"]["driver"]["rules"]
    [result] = sarif_run["results"]
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == "unknown-key"
    assert result["level"] == "error" and result["message"]["text"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == path.as_uri()
    assert rules[result["ruleIndex"]]["helpUri"].endswith("/docs/rules.md#unknown-key")
    assert location["region"] == {"startLine": 5, "startColumn": 54, "endLine": 5,
                                  "endColumn": 60}


def test_sarif_validates_against_the_sarif_2_1_0_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = json.loads((FIXTURES / "sarif-2.1.0-rtm.5.schema.json").read_text(encoding="utf-8"))
    (tmp_path / "dir with space").mkdir()
    (tmp_path / "dir with space" / "broken.relavium.yaml").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "cycle.relavium.yaml").write_text(CYCLE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", stdin_of(BROKEN.encode()))
    code, out, _ = run(capsys, "--format", "sarif", ".", "-")
    assert code == 1
    log = json.loads(out)
    jsonschema.Draft4Validator(schema).validate(log)
    results = log["runs"][0]["results"]
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in results]
    # Relative to the checkout, percent-encoded: what code scanning resolves against the repo.
    assert {"uri": "dir%20with%20space/broken.relavium.yaml"} in locations
    assert {"description": {"text": "standard input"}} in locations
    assert any("relatedLocations" in r for r in results if r["ruleId"] == "cycle")


def test_directories_find_workflow_files_and_relavium_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("a.relavium.yaml", "b.relavium.yml", ".relavium/c.yaml", "sub/.relavium/d.yml",
                 "plain.yaml", "node_modules/e.relavium.yaml", ".git/f.relavium.yaml"):
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(BROKEN, encoding="utf-8")
    code, out, _ = run(capsys, "--format", "json", str(tmp_path))
    assert code == 1
    found = sorted({Path(record["path"]).relative_to(tmp_path).as_posix()
                    for record in json.loads(out)})
    assert found == [".relavium/c.yaml", "a.relavium.yaml", "b.relavium.yml",
                     "sub/.relavium/d.yml"]


def test_many_files_are_checked_in_parallel_with_the_same_ordered_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for index in range(20):
        (tmp_path / f"w{index:02}.relavium.yaml").write_text(
            BROKEN if index % 2 else CLEAN, encoding="utf-8")
    code, out, _ = run(capsys, "--format", "json", str(tmp_path))
    assert code == 1
    paths = [Path(record["path"]).name for record in json.loads(out)]
    assert paths == [f"w{index:02}.relavium.yaml" for index in range(1, 20, 2)]


def test_stdin_is_read_for_a_dash(monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", stdin_of(CLEAN.encode()))
    code, out, err = run(capsys, "-")
    assert (code, out) == (0, "")
    assert "1 file checked: 0 errors, 0 warnings" in err


def test_missing_or_unreadable_files_are_io_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, str(tmp_path / "nope.relavium.yaml"))
    assert code == 2 and "no such file" in err
    binary = tmp_path / "latin1.relavium.yaml"
    binary.write_bytes(b"schema_version: '\xff'\n")
    code, _, err = run(capsys, str(binary))
    assert code == 2 and "cannot read" in err


def test_warnings_alone_exit_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "warn.relavium.yaml"
    path.write_text(CLEAN.replace("  edges: []", "    - { id: lost, type: output }\n  edges: []"),
                    encoding="utf-8")
    code, out, _ = run(capsys, str(path))
    assert code == 0 and "warning unreachable-node" in out


def test_a_relative_walk_inside_a_relavium_folder_finds_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / ".relavium" / "team"
    folder.mkdir(parents=True)
    (folder / "flow.yaml").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "outside.yaml").write_text(BROKEN, encoding="utf-8")
    monkeypatch.chdir(folder)
    code, out, _ = run(capsys, "--format", "json", ".")
    assert code == 1
    assert {record["path"] for record in json.loads(out)} == {"flow.yaml"}
    # `..` leaves the folder: a plain YAML file beside it is not a workflow.
    monkeypatch.chdir(tmp_path / ".relavium")
    code, out, _ = run(capsys, "--format", "json", "..")
    assert code == 1
    assert {record["path"] for record in json.loads(out)} == {"../.relavium/team/flow.yaml"}


def test_stdin_that_is_not_utf8_is_an_io_error_and_crlf_is_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", stdin_of(b"schema_version: '\xff'\n"))
    code, out, err = run(capsys, "-")
    assert (code, out) == (2, "")
    assert "<stdin>: cannot read" in err and "utf-8" in err
    monkeypatch.setattr(sys, "stdin", stdin_of(BROKEN.replace("\n", "\r\n").encode()))
    code, out, _ = run(capsys, "--format", "json", "-")
    assert code == 1
    [record] = json.loads(out)
    assert record["range"]["start"] == {"line": 4, "character": 53}


def test_a_byte_order_mark_is_not_a_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "schema_version: 1.0\n" + CLEAN.split("\n", 1)[1]
    path = tmp_path / "bom.relavium.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    code, out, _ = run(capsys, str(path))
    assert code == 1
    assert out.startswith(f"{path}:1:17: error invalid-value")
    assert out.split("\n")[1:3] == ["  schema_version: 1.0", "                  ^~~"]
    monkeypatch.setattr(sys, "stdin", stdin_of(b"\xef\xbb\xbf" + text.encode()))
    code, out, _ = run(capsys, "--format", "json", "-")
    [record] = json.loads(out)
    assert record["range"]["start"] == {"line": 0, "character": 16}


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path: Path, output_format: str) -> None:
    path = tmp_path / "many.relavium.yaml"
    # Far more output than a pipe buffers, so the writer is still writing when `head` leaves.
    path.write_text(CLEAN.replace(
        "    - { id: start, type: input }\n",
        "".join(f"    - {{ id: n{i}, type: output, colour: red }}\n" for i in range(3000)),
    ), encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "server", "check", "--format", output_format, str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline()
    process.stdout.close()
    error = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert "Traceback" not in error and "BrokenPipeError" not in error


def test_a_directory_without_workflows_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plain.yaml").write_text(BROKEN, encoding="utf-8")
    code, out, err = run(capsys, str(tmp_path))
    assert (code, out) == (0, "")
    assert f"{tmp_path}: no Relavium files found" in err


def test_stdin_given_twice_is_a_usage_error_not_an_empty_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", stdin_of(CLEAN.encode()))
    code, out, err = run(capsys, "-", "-")
    assert (code, out) == (2, "")
    assert "standard input can be read only once" in err
    assert "1 file checked: 0 errors" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_found_in_a_directory_walk_is_skipped_not_read_forever(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tmp_path / "pipe.relavium.yaml")
    (tmp_path / "real.relavium.yaml").write_text(CLEAN, encoding="utf-8")
    code, out, err = run(capsys, str(tmp_path))
    assert (code, out) == (0, "")
    assert "1 file checked" in err
