"""`relavium-lsp eval`: flags, the JSON shape, exit codes, scope files, no secret in output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SECRET = "sk-cli-secret-987654"


def run_eval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", "eval", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def scope_file(tmp_path: Path) -> Path:
    path = tmp_path / "scope.json"
    path.write_text(
        json.dumps(
            {
                "inputs": {"items": [1, 2, 3], "api_key": SECRET},
                "ctx": {"env": "prod", "token": SECRET},
                "run": {"outputs": {"classify": {"label": "bug"}}},
                "branches": [{"n": 1}, {"n": 2}],
                "secret_inputs": ["api_key"],
                "secret_ctx": ["token"],
            }
        )
    )
    return path


def test_json_value_and_exit_zero(scope_file: Path) -> None:
    result = run_eval(
        "--kind", "merge", "--expr", "branches.map(b => b.n).concat(inputs.items)",
        "--scope", str(scope_file), "--format", "json",
    )  # fmt: skip
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout) == {"ok": True, "value": [1, 2, 1, 2, 3]}


@pytest.mark.parametrize(
    ("expr", "number", "text"),
    [("0/0", "NaN", "NaN"), ("-1/0", "-Infinity", "-Infinity"), ("-0", "-0", "-0")],
)
def test_special_numbers_are_tagged(expr: str, number: str, text: str) -> None:
    # `--expr=SOURCE`: a source starting with `-` would otherwise read as an option.
    result = run_eval("--kind", "condition", f"--expr={expr}", "--format", "json")
    assert json.loads(result.stdout) == {"ok": True, "value": None, "number": number}
    assert run_eval("--kind", "condition", f"--expr={expr}").stdout.strip() == text


def test_text_value_is_pretty_json() -> None:
    result = run_eval("--kind", "transform", "--expr", "({ a: ['é'] })")
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"a": ["é"]}


def test_lone_surrogate_result_prints_escaped() -> None:
    assert run_eval("--kind", "transform", "--expr", "'\\ud800'").stdout.strip() == '"\\ud800"'


@pytest.mark.parametrize(
    ("expr", "reason"),
    [("inputs.api_key", "secret_context"), ("ctx.token", "secret_context"), ("1 +", "syntax")],
)
def test_sandbox_error_is_exit_one_without_secrets(
    scope_file: Path, expr: str, reason: str
) -> None:
    for output_format in ("json", "text"):
        result = run_eval(
            "--kind", "transform", "--expr", expr, "--scope", str(scope_file),
            "--format", output_format,
        )  # fmt: skip
        assert result.returncode == 1
        assert SECRET not in result.stdout + result.stderr
        if output_format == "json":
            error = json.loads(result.stdout)["error"]
            # `eval` shows the author's own error, except for a secret read (no detail at all).
            shown = {"code", "reason", "retryable", "message"}
            assert set(error) == (shown if reason == "secret_context" else shown | {"detail"})
            assert (error["code"], error["reason"], error["retryable"]) == (
                "sandbox_error",
                reason,
                False,
            )
        else:
            assert f"sandbox_error ({reason})" in result.stderr


def test_secret_never_appears_even_when_values_are_dumped(scope_file: Path) -> None:
    result = run_eval(
        "--kind", "transform", "--expr", "[Object.keys(inputs), Object.keys(ctx), ctx.env]",
        "--scope", str(scope_file), "--format", "json",
    )  # fmt: skip
    assert json.loads(result.stdout)["value"] == [["items", "api_key"], ["env", "token"], "prod"]
    assert SECRET not in result.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"ctx": {"a": 1}}', "scope.ctx.a: must be a string"),
        ('{"inputs": {"x": NaN}}', "NaN is not JSON"),
        ('{"branch": []}', "scope.branch: unknown field"),
        ('{"inputs": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}", "nested deeper than 128"),
    ],
)
def test_bad_scope_file_is_a_usage_error_naming_the_field(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = run_eval("--kind", "transform", "--expr", "1", "--scope", str(path))
    assert result.returncode == 2
    assert str(path) in result.stderr and message in result.stderr
    assert result.stdout == ""


def test_missing_scope_file_and_bad_kind_are_usage_errors(tmp_path: Path) -> None:
    missing = run_eval("--kind", "transform", "--expr", "1", "--scope", str(tmp_path / "no.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    assert run_eval("--kind", "jmespath", "--expr", "1").returncode == 2
