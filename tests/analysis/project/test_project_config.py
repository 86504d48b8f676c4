"""Project configuration and .gitignore through the real command line (docs/configuration.md)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CLEAN_WORKFLOW, FINDINGS_WORKFLOW, relavium_lsp

CLEAN = CLEAN_WORKFLOW
FINDINGS = FINDINGS_WORKFLOW


def check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return relavium_lsp("check", *args, cwd=cwd)


def found(result: subprocess.CompletedProcess[str]) -> list[tuple[str, str, str]]:
    return [(Path(record["path"]).as_posix(), record["code"], record["severity"])
            for record in json.loads(result.stdout)]


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("config_file", ["relavium-lsp.toml", ".relavium-lsp.toml", "pyproject"])
def test_rules_set_levels_and_switch_rules_off(tmp_path: Path, config_file: str) -> None:
    body = '[rules]\nunknown-key = "off"\nunreachable-node = "error"\n'
    if config_file == "pyproject":
        config_file, body = "pyproject.toml", "[tool.relavium-lsp]\n" + body.replace(
            "[rules]", "[tool.relavium-lsp.rules]")
    write(tmp_path, {config_file: body, "w.relavium.yaml": FINDINGS})
    result = check("--format", "json", ".", cwd=tmp_path)
    assert found(result) == [("w.relavium.yaml", "unreachable-node", "error")]
    assert result.returncode == 1
    # The defaults without the file: an error and a warning.
    plain = check("--format", "json", "--no-config", ".", cwd=tmp_path)
    assert [code for _, code, _ in found(plain)] == ["unknown-key", "unreachable-node"]


def test_a_rule_downgraded_to_a_hint_no_longer_fails_and_is_a_github_notice(
    tmp_path: Path,
) -> None:
    write(tmp_path, {"relavium-lsp.toml": '[rules]\nunknown-key = "hint"\n'
                                          'unreachable-node = "information"\n',
                     "w.relavium.yaml": FINDINGS})
    result = check("--format", "github", ".", cwd=tmp_path)
    assert result.returncode == 0
    assert [line.split(" ", 1)[0] for line in result.stdout.splitlines()] == [
        "::notice", "::notice"]


def test_the_first_file_walking_up_wins_and_a_pyproject_without_the_table_is_passed_over(
    tmp_path: Path,
) -> None:
    write(tmp_path, {
        "relavium-lsp.toml": '[rules]\nunknown-key = "off"\n',
        "repo/pyproject.toml": "[project]\nname = 'x'\n",
        "repo/flows/w.relavium.yaml": FINDINGS,
        "other/relavium-lsp.toml": '[rules]\nunreachable-node = "off"\n',
        "other/w.relavium.yaml": FINDINGS,
    })
    result = check("--format", "json", "repo/flows", "other/w.relavium.yaml", cwd=tmp_path)
    assert found(result) == [("repo/flows/w.relavium.yaml", "unreachable-node", "warning"),
                             ("other/w.relavium.yaml", "unknown-key", "error")]


def test_the_hidden_file_comes_before_the_plain_one_and_pyproject_in_one_folder(
    tmp_path: Path,
) -> None:
    write(tmp_path, {".relavium-lsp.toml": '[rules]\nunknown-key = "off"\n',
                     "relavium-lsp.toml": '[rules]\nunreachable-node = "off"\n',
                     "pyproject.toml": '[tool.relavium-lsp.rules]\nunreachable-node = "off"\n',
                     "w.relavium.yaml": FINDINGS})
    result = check("--format", "json", ".", cwd=tmp_path)
    assert [code for _, code, _ in found(result)] == ["unreachable-node"]


def test_config_and_no_config_flags(tmp_path: Path) -> None:
    write(tmp_path, {"relavium-lsp.toml": '[rules]\nunknown-key = "off"\n',
                     "elsewhere/strict.toml": '[rules]\nunreachable-node = "off"\n',
                     "w.relavium.yaml": FINDINGS})
    chosen = check("--format", "json", "--config", "elsewhere/strict.toml", ".", cwd=tmp_path)
    assert [code for _, code, _ in found(chosen)] == ["unknown-key"]
    both = check("--config", "elsewhere/strict.toml", "--no-config", ".", cwd=tmp_path)
    assert both.returncode == 2
    missing = check("--config", "nope.toml", ".", cwd=tmp_path)
    assert missing.returncode == 2
    assert "nope.toml: cannot read" in missing.stderr


@pytest.mark.parametrize(("body", "expected"), [
    ('[rules]\nunknown-key = "loud"\n',
     "rules.unknown-key must be one of error, warning, information, hint, off, got 'loud'"),
    ('[rules]\nno-such-rule = "off"\n', "rules.no-such-rule is not a rule id"),
    ('exclud = ["x"]\n',
     "'exclud' in the file is not a setting; allowed keys: exclude, extend-exclude, rules, "
     "sample-scope"),
    ('exclude = "x/"\n', "'exclude' must be a list of glob strings"),
    ('extend-exclude = [1]\n', "'extend-exclude' must be a list of glob strings"),
    ('exclude = ["ok/", "[ab"]\n', "'exclude' holds an invalid glob '[ab' (an unterminated ["),
    ('rules = "strict"\n', "'rules' must be a table of rule id = level (one of error, warning"),
    ("sample-scope = 3\n", "'sample-scope' must be a file path"),
    ("rules = {\n", "not valid TOML"),
])
def test_an_invalid_file_is_exit_2_naming_the_file_key_and_allowed_values(
    tmp_path: Path, body: str, expected: str
) -> None:
    write(tmp_path, {"relavium-lsp.toml": body, "w.relavium.yaml": CLEAN})
    result = check(".", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert f"invalid configuration: {tmp_path.resolve() / 'relavium-lsp.toml'}: " in result.stderr
    assert expected in result.stderr


def test_exclude_and_extend_exclude_prune_walks_and_named_files(tmp_path: Path) -> None:
    write(tmp_path, {
        "relavium-lsp.toml": 'extend-exclude = ["fixtures/", "**/*.draft.relavium.yaml"]\n',
        "fixtures/bad.relavium.yaml": FINDINGS,
        "flows/a.relavium.yaml": CLEAN,
        "flows/b.draft.relavium.yaml": FINDINGS,
        "node_modules/pkg/c.relavium.yaml": FINDINGS,
    })
    walked = check(".", cwd=tmp_path)
    assert (walked.returncode, walked.stdout) == (0, "")
    assert "1 file checked" in walked.stderr
    named = check("fixtures/bad.relavium.yaml", cwd=tmp_path)
    assert named.returncode == 0
    assert "fixtures/bad.relavium.yaml: skipped: excluded by" in named.stderr


def test_exclude_replaces_the_defaults(tmp_path: Path) -> None:
    write(tmp_path, {"relavium-lsp.toml": 'exclude = ["flows/"]\n',
                     "flows/a.relavium.yaml": FINDINGS,
                     "node_modules/pkg/c.relavium.yaml": CLEAN})
    result = check("--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 0 and found(result) == []
    assert "1 file checked" not in result.stderr  # json prints no summary
    assert check(".", cwd=tmp_path).stderr.startswith("1 file checked")


def test_gitignore_is_respected_in_walks_with_negation_nesting_and_the_repository_top(
    tmp_path: Path,
) -> None:
    write(tmp_path, {
        ".git/HEAD": "ref: refs/heads/main\n",
        ".gitignore": "build/\n*.tmp.relavium.yaml\n",
        "project/.gitignore": "generated/*\n!generated/kept.relavium.yaml\n",
        "project/build/x.relavium.yaml": FINDINGS,
        "project/a.tmp.relavium.yaml": FINDINGS,
        "project/generated/gone.relavium.yaml": FINDINGS,
        "project/generated/kept.relavium.yaml": CLEAN,
        "project/ok.relavium.yaml": CLEAN,
    })
    # Walking `project/` still applies the repository top's .gitignore.
    result = check("project", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, ""), result.stderr
    assert "2 files checked" in result.stderr
    everything = check("--no-gitignore", "--format", "json", "project", cwd=tmp_path)
    assert sorted({path for path, _, _ in found(everything)}) == [
        "project/a.tmp.relavium.yaml", "project/build/x.relavium.yaml",
        "project/generated/gone.relavium.yaml"]


def test_gitignore_outside_a_repository_applies_inside_the_walked_folder_only(
    tmp_path: Path,
) -> None:
    write(tmp_path, {".gitignore": "*.relavium.yaml\n",
                     "flows/.gitignore": "old/\n",
                     "flows/old/x.relavium.yaml": FINDINGS,
                     "flows/a.relavium.yaml": CLEAN})
    result = check("flows", cwd=tmp_path)
    assert "1 file checked" in result.stderr


def test_sample_scope_is_the_default_for_run(tmp_path: Path) -> None:
    write(tmp_path, {
        "relavium-lsp.toml": 'sample-scope = "samples/shared.json"\n',
        "samples/shared.json": '{"inputs": {"n": 20}}',
        "flows/w.relavium.yaml": (
            "schema_version: '1.0'\nworkflow:\n  id: demo\n  inputs:\n"
            "    - { name: n, type: number }\n  nodes:\n    - { id: start, type: input }\n"
            "    - { id: double, type: transform, transform: 'inputs.n * 2' }\n"
            "  edges: [{ from: start, to: double }]\n"),
    })
    result = relavium_lsp("run", "flows/w.relavium.yaml", "--node", "double", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "40"
    assert "shared.json" in result.stderr


# -- issue 21, item 7: a pyproject.toml tomllib cannot read ------------------------------------

DEEP = "[" * 5000 + "]" * 5000  # tomllib recurses per level: RecursionError, not TOMLDecodeError


@pytest.mark.parametrize("command", [("check", "."), ("run", "w.relavium.yaml")])
def test_a_deep_pyproject_without_our_table_is_passed_over(tmp_path: Path,
                                                          command: tuple[str, str]) -> None:
    write(tmp_path, {"pyproject.toml": f'[project]\nname = "x"\nweird = {DEEP}\n',
                     "w.relavium.yaml": CLEAN})
    result = relavium_lsp(*command, cwd=tmp_path)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize("table", [
    "[tool.relavium-lsp]\nrules = {}\n",
    '[tool."relavium-lsp".rules]\n',
    "tool.relavium-lsp.rules = {}\n",
    '[tool]\nother = 1\nrelavium-lsp = { rules = {} }\n',
])
@pytest.mark.parametrize("command", [("check", "."), ("run", "w.relavium.yaml")])
def test_a_deep_pyproject_naming_our_table_is_exit_2_naming_the_file(
    tmp_path: Path, table: str, command: tuple[str, str]
) -> None:
    write(tmp_path, {"pyproject.toml": f"{table}weird = {DEEP}\n", "w.relavium.yaml": CLEAN})
    result = relavium_lsp(*command, cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"{tmp_path.resolve() / 'pyproject.toml'}: arrays or inline tables are nested too " \
           "deeply for the TOML reader; flatten them" in result.stderr


@pytest.mark.parametrize("body", [f"x = {DEEP}\n", "x = " + "{a = " * 5000 + "1" + "}" * 5000])
def test_an_explicit_deep_config_file_is_exit_2(tmp_path: Path, body: str) -> None:
    write(tmp_path, {"deep.toml": body, "w.relavium.yaml": CLEAN})
    result = check("--config", "deep.toml", ".", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "deep.toml: arrays or inline tables are nested too deeply" in result.stderr


def test_a_broken_pyproject_is_passed_over_unless_a_line_names_our_table(tmp_path: Path) -> None:
    # dependencies and other tools' tables mention the name without naming the table
    unnamed = ('[project]\ndependencies = [\n  "relavium-lsp>=1",\n]\n'
               '[tool.poetry.dependencies]\nrelavium-lsp = "^1"\n[tool.relavium-lspx]\nx = [\n')
    write(tmp_path, {"pyproject.toml": unnamed, "w.relavium.yaml": CLEAN})
    assert check(".", cwd=tmp_path).returncode == 0
    write(tmp_path, {"pyproject.toml": "[ tool . 'relavium-lsp' ]\nrules = {\n"})
    result = check(".", cwd=tmp_path)
    assert result.returncode == 2 and "not valid TOML" in result.stderr
