"""No output of `check`, `run` or `eval` is a GitHub Actions workflow command a pull request
wrote (issue 21, items 4 and 5), and `run`/`eval` text carries no raw control character.

The runner (actions/runner src/Runner.Worker/ActionCommand.cs) executes a line whose start,
leading whitespace trimmed, is `::` (TryParseV2) and, failing that, a line holding the legacy
`##[` anywhere (TryParse). Each vector is a name, a YAML line or a value a repository controls,
run through the real command line in every output format.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

from server.cli import check as check_command
from tests.conftest import relavium_lsp
from tests.security.test_check_output import ALL_CONTROLS

# Each name starts a line of text output (paths are printed as found, without `./`).
HOSTILE_NAMES = [
    "::warning title=pwn::a.relavium.yaml",
    "  ::error::b.relavium.yaml",
    "\u200b::notice::c.relavium.yaml",  # a format character a culture-aware match looks through
    "##[error]d.relavium.yaml",
]
# The offending YAML line itself is the excerpt; the unknown key is quoted in the message.
HOSTILE_WORKFLOW = """\
schema_version: '1.0'
::warning title=excerpt::x: 1
workflow:
  id: demo
  nodes:
    - { id: start, type: input, '##[error]key': 'x #\u200b#[group]y' }
  edges: []
"""
OUR_GITHUB_COMMAND = re.compile(
    r"::(error|warning|notice) file=[^:,]*,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,"
    r"title=[a-z-]+::"
)


def _visible(line: str) -> str:
    """The line as a culture-aware runner may match it: format characters and marks dropped."""
    return "".join(ch for ch in line if unicodedata.category(ch) not in ("Cf", "Mn", "Me"))


def runner_commands(output: str, ours: re.Pattern[str] | None = None) -> list[str]:
    """The lines a GitHub Actions runner would execute, except those matching `ours`."""
    executed = []
    for line in output.split("\n"):
        if ours is not None and ours.match(line):
            continue
        seen = _visible(line)
        if seen.lstrip().startswith("::") or "##[" in seen:
            executed.append(line)
    return executed


def raw_controls(text: str) -> set[str]:
    return {ch for ch in text if ch in ALL_CONTROLS and ch != "\n"}


@pytest.fixture
def hostile_checkout(tmp_path: Path) -> Path:
    for name in HOSTILE_NAMES:
        (tmp_path / name).write_text(HOSTILE_WORKFLOW, encoding="utf-8")
    return tmp_path


def check_formats() -> list[str]:
    """Every `--format` check offers, read from its own arguments (a new one is tested too)."""
    parser = argparse.ArgumentParser()
    check_command.add_arguments(parser)
    (action,) = [action for action in parser._actions if action.dest == "format"]
    assert action.choices is not None
    return list(action.choices)


def test_the_formats_tested_are_the_ones_check_has() -> None:
    assert sorted(check_formats()) == ["github", "json", "sarif", "text"]


@pytest.mark.parametrize("output_format", check_formats())
def test_check_prints_no_command_a_checkout_wrote(hostile_checkout: Path,
                                                  output_format: str) -> None:
    result = relavium_lsp("check", "--format", output_format, ".", cwd=hostile_checkout)
    assert result.returncode == 1, result.stderr
    ours = OUR_GITHUB_COMMAND if output_format == "github" else None
    assert runner_commands(result.stdout, ours) == []
    assert runner_commands(result.stderr) == []
    if output_format == "github":
        # Each finding is still one command of ours (4 files, 2 findings each).
        assert len([line for line in result.stdout.splitlines()
                    if OUR_GITHUB_COMMAND.match(line)]) == 8


def test_check_text_shows_each_vector_escaped(hostile_checkout: Path) -> None:
    result = relavium_lsp("check", ".", cwd=hostile_checkout)
    lines = result.stdout.splitlines()
    assert "\\x3a:warning title=pwn::a.relavium.yaml:2:1: error unknown-key top level: " \
           "unknown key '::warning title=excerpt::x'; allowed keys: schema_version, " \
           "workflow" in lines
    assert "  \\x3a:error::b.relavium.yaml:6:33: error unknown-key workflow.nodes[0] (start): " \
           "unknown key '#\\x23[error]key'; allowed keys: id, type, label" in lines
    assert any(line.startswith("\u200b\\x3a:notice::c.relavium.yaml:2:1:") for line in lines)
    assert any(line.startswith("#\\x23[error]d.relavium.yaml:2:1:") for line in lines)
    # The excerpts: the caret stays under the key, counted on the line as printed.
    excerpt = "      - { id: start, type: input, '#\\x23[error]key': 'x #\u200b\\x23[group]y' }"
    assert lines.count(excerpt) == 4
    caret = lines[lines.index(excerpt) + 1]
    assert caret == " " * excerpt.index("'#") + "^" + "~" * (len("'#\\x23[error]key'") - 1)
    assert lines.count("  \\x3a:warning title=excerpt::x: 1") == 4


@pytest.mark.parametrize("output_format", ["json", "sarif"])
def test_check_json_is_the_same_data_with_hashes_escaped(hostile_checkout: Path,
                                                         output_format: str) -> None:
    result = relavium_lsp("check", "--format", output_format, ".", cwd=hostile_checkout)
    assert "#" not in result.stdout
    document = json.loads(result.stdout)
    # Byte for byte what json.dumps writes, but for `#` (no C1 or bidi control in this data).
    assert result.stdout.replace("\\u0023", "#") == json.dumps(
        document, indent=2, ensure_ascii=False) + "\n"
    if output_format == "json":
        assert sorted({finding["path"] for finding in document}) == sorted(HOSTILE_NAMES)
        messages = [finding["message"] for finding in document]
    else:
        (run,) = document["runs"]
        assert all("#" in rule["helpUri"] for rule in run["tool"]["driver"]["rules"])
        messages = [result["message"]["text"] for result in run["results"]]
    assert messages.count("workflow.nodes[0] (start): unknown key '##[error]key'; allowed "
                          "keys: id, type, label") == 4
    assert messages.count("top level: unknown key '::warning title=excerpt::x'; allowed "
                          "keys: schema_version, workflow") == 4


def test_check_json_escapes_c1_and_bidi_controls_as_the_text_does(tmp_path: Path) -> None:
    (tmp_path / "w.relavium.yaml").write_text(
        "schema_version: '1.0'\n\"k\\u009b\\u202e\\u2028\": 1\n", encoding="utf-8")
    result = relavium_lsp("check", "--format", "json", ".", cwd=tmp_path)
    assert raw_controls(result.stdout) == set()
    assert "k\\u009b\\u202e\\u2028" in result.stdout
    assert any(finding["data"] == {"key": "k\x9b\u202e\u2028"}
               for finding in json.loads(result.stdout))


# A node id and a samples key carrying a window title, a clear screen, a C1 CSI, a bidi override
# and the legacy command; another node id starting a workflow command.
TERMINAL_ID = "t\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e##[group]"
COMMAND_ID = "::warning title=pwn::n"


def _yaml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a YAML double-quoted scalar


HOSTILE_RUN = f"""\
schema_version: '1.0'
workflow:
  id: demo
  inputs:
    - {{ name: a, type: number }}
  nodes:
    - {{ id: start, type: input }}
    - {{ id: {_yaml(COMMAND_ID)}, type: transform, transform: 'inputs.a + 1' }}
    - {{ id: {_yaml(TERMINAL_ID)}, type: transform, transform: 'null.x' }}
  edges:
    - {{ from: start, to: {_yaml(COMMAND_ID)} }}
    - {{ from: start, to: {_yaml(TERMINAL_ID)} }}
"""
# the hostile keys go under `ctx`, which notes an undeclared key: an undeclared input is refused
# outright (ADR-0083 §1-2 strict admission), its key not shown
HOSTILE_SAMPLES = {"inputs": {"a": 1}, "ctx": {TERMINAL_ID: 2, COMMAND_ID: 3}}


@pytest.fixture
def hostile_run(tmp_path: Path) -> tuple[Path, Path]:
    workflow = tmp_path / "w.relavium.yaml"
    workflow.write_text(HOSTILE_RUN, encoding="utf-8")
    samples = tmp_path / "s.json"
    samples.write_text(json.dumps(HOSTILE_SAMPLES), encoding="utf-8")
    return workflow, samples


def assert_nothing_reaches_the_terminal(result: subprocess.CompletedProcess[str]) -> None:
    output = result.stdout + result.stderr
    assert raw_controls(output) == set()
    assert runner_commands(result.stdout) == [] and runner_commands(result.stderr) == []


SHOWN_TERMINAL_ID = "t\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202e#\\x23[group]"


def test_run_text_escapes_node_ids_and_samples_keys(hostile_run: tuple[Path, Path]) -> None:
    workflow, samples = hostile_run
    result = relavium_lsp("run", str(workflow), "--scope", str(samples))
    assert result.returncode == 1, result.stderr
    assert_nothing_reaches_the_terminal(result)
    lines = result.stdout.splitlines()
    assert "\\x3a:warning title=pwn::n (transform) ran: 2" in lines
    assert (f"{SHOWN_TERMINAL_ID} (transform) failed: sandbox_error (runtime): the expression "
            "threw an error") in lines
    notes = result.stderr.splitlines()
    assert f"note: sample ctx `{SHOWN_TERMINAL_ID}` is not declared by the workflow; " \
           "left out" in notes
    assert f"dry run failed at {SHOWN_TERMINAL_ID}: 2 ran, 1 failed" in notes


def test_run_node_text_escapes_the_node_line(hostile_run: tuple[Path, Path]) -> None:
    workflow, samples = hostile_run
    result = relavium_lsp("run", str(workflow), "--scope", str(samples), "--node", COMMAND_ID)
    assert result.returncode == 0, result.stderr
    assert_nothing_reaches_the_terminal(result)
    assert result.stderr.startswith(f"\\x3a:warning title=pwn::n: explicit scope {samples}\n")


@pytest.mark.parametrize("node", [None, COMMAND_ID])
def test_run_json_is_the_same_data_with_hashes_escaped(hostile_run: tuple[Path, Path],
                                                       node: str | None) -> None:
    workflow, samples = hostile_run
    extra = [] if node is None else ["--node", node]
    result = relavium_lsp("run", str(workflow), "--scope", str(samples), "--format", "json",
                          *extra)
    assert_nothing_reaches_the_terminal(result)
    assert "#" not in result.stdout
    answer = json.loads(result.stdout)
    if node is None:
        assert [entry["id"] for entry in answer["nodes"]] == ["start", COMMAND_ID, TERMINAL_ID]
    else:
        assert answer["node"] == COMMAND_ID


def run_eval(expression: str, *args: str) -> subprocess.CompletedProcess[str]:
    return relavium_lsp("eval", "--kind", "transform", f"--expr={expression}", *args)


def test_eval_text_escapes_a_value() -> None:
    result = run_eval('"\\u009b2J\\u202e##[group]" + "\\n::warning::x"')
    assert result.returncode == 0, result.stderr
    assert_nothing_reaches_the_terminal(result)
    assert result.stdout == '"\\x9b2J\\u202e#\\x23[group]\\n::warning::x"\n'


def test_eval_json_escapes_hashes_and_keeps_the_value() -> None:
    result = run_eval('"##[group]\\u009b"', "--format", "json")
    assert_nothing_reaches_the_terminal(result)
    assert "#" not in result.stdout
    assert json.loads(result.stdout) == {"ok": True, "value": "##[group]\x9b"}


def test_eval_text_escapes_a_thrown_message_on_its_own_line() -> None:
    result = run_eval('(() => { throw new Error("x\\n::warning::pwn ##[group]") })()')
    assert result.returncode == 1
    assert_nothing_reaches_the_terminal(result)
    assert "\\x3a:warning::pwn #\\x23[group]" in result.stderr


def test_eval_compiler_lines_escape_the_source_and_keep_the_caret_under_it() -> None:
    result = run_eval("::warning::x\x1b[2J")
    assert result.returncode == 1
    assert_nothing_reaches_the_terminal(result)
    lines = result.stderr.splitlines()
    assert lines[1:3] == ["\\x3a:warning::x\\x1b[2J", "^^^^"]
    shifted = run_eval("\t'\u202e' + null.x")
    assert shifted.stderr.splitlines()[1:3] == ["\t'\\u202e' + null.x",
                                                "\t" + " " * 16 + "^"]


@pytest.mark.parametrize("arguments", [
    ["check", "--format=##[error]x.relavium.yaml", "."],  # a file name taken for an option
    ["check", "--\x1b]0;t\x07##[error]x.relavium.yaml"],
    ["run", "w.relavium.yaml", "--node"],
])
def test_usage_errors_quoting_arguments_are_escaped(tmp_path: Path,
                                                    arguments: list[str]) -> None:
    result = relavium_lsp(*arguments, cwd=tmp_path)
    assert result.returncode == 2
    assert "error:" in result.stderr
    assert_nothing_reaches_the_terminal(result)
