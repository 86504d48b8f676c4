"""The console script's contract: version, subcommands, usage errors."""

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from server.cli.main import main
from tests.analysis.large_workflow import large_workflow


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", *args], capture_output=True, text=True, timeout=60
    )


def test_version_prints_the_distribution_version() -> None:
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"relavium-lsp {version('relavium-lsp')}"


def test_no_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "serve" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["serve", "check", "run", "eval", "schema", "graph"])
def test_every_subcommand_has_help(name: str) -> None:
    result = run_cli(name, "--help")
    assert result.returncode == 0, result.stderr
    assert f"relavium-lsp {name}" in result.stdout


def test_unknown_option_is_a_usage_error() -> None:
    assert run_cli("check", "--no-such-flag", "x").returncode == 2


CHECK_AND_LIST_MODULES = """
import json, sys
from server.cli.main import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def modules_after(*args: str) -> set[str]:
    result = subprocess.run([sys.executable, "-c", CHECK_AND_LIST_MODULES, *args],
                            capture_output=True, text=True, timeout=60)
    outcome = json.loads(result.stdout.splitlines()[-1])
    assert outcome["code"] == 0, result.stderr
    return set(outcome["modules"])


# What `check` has no use for: the other subcommands' LSP types, dry run and worker pool, the
# sandbox's evaluator (only its syntax check is used), the distribution metadata only `--version`
# and SARIF output read, a process pool for one file, the gitignore matcher and TOML reader for a
# named file with no configuration file or folder walk, the sample-scope module, and the quickjs
# package's thread pool around the binding the syntax check uses.
NOT_FOR_CHECK = ("lsprotocol", "pygls", "server.lsp.dry_run", "server.cli.run",
                 "server.cli.eval_cmd", "server.lsp.serve", "sandbox.pool",
                 "sandbox.evaluator", "sandbox.vm", "importlib.metadata",
                 "concurrent.futures", "pathspec", "tomllib", "analysis.dryrun.samples",
                 "analysis.dryrun.scope", "analysis.dryrun.runner", "analysis.dryrun.launch",
                 "analysis.dryrun.presentation", "quickjs")


def test_check_imports_only_what_checking_needs(tmp_path: Path) -> None:
    workflow = tmp_path / "w.relavium.yaml"
    workflow.write_text(large_workflow(1), encoding="utf-8")
    loaded = modules_after("check", str(workflow))
    assert "analysis.checks.registry" in loaded  # it did check
    assert sorted(name for name in NOT_FOR_CHECK if name in loaded) == []


def test_run_loads_no_language_server_module(tmp_path: Path) -> None:
    # the command line dry-runs through analysis.dryrun; the LSP layer only converts its results
    workflow = tmp_path / "w.relavium.yaml"
    workflow.write_text(
        "schema_version: '1.0'\nworkflow:\n  id: w\n  nodes:\n    - { id: start, type: input }\n"
        "    - { id: t, type: transform, transform: '1 + 1' }\n"
        "  edges: [{ from: start, to: t }]\n",
        encoding="utf-8",
    )
    loaded = modules_after("run", "--format", "json", str(workflow))
    assert "analysis.dryrun.launch" in loaded  # it did run
    assert sorted(name for name in loaded
                  if name.split(".")[0] in ("pygls", "lsprotocol")
                  or name.startswith("server.lsp")) == []


def test_every_subcommand_is_listed_in_the_help() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    for name in ("serve", "check", "run", "eval", "schema", "graph"):
        assert f"    {name} " in result.stdout


def test_sarif_output_names_the_distribution_version(tmp_path: Path) -> None:
    workflow = tmp_path / "w.relavium.yaml"
    workflow.write_text(large_workflow(1), encoding="utf-8")
    result = run_cli("check", "--format", "sarif", str(workflow))
    assert result.returncode == 0, result.stderr
    driver = json.loads(result.stdout)["runs"][0]["tool"]["driver"]
    assert driver["version"] == version("relavium-lsp")


PROGRAM_WITH_EXIT_HOOK = """
import atexit, sys
atexit.register(lambda: print("interpreter teardown", file=sys.stderr))
sys.argv[0] = "relavium-lsp"
from server.cli.main import program
program()
"""


def test_a_check_exits_without_interpreter_teardown_and_loses_no_output(tmp_path: Path) -> None:
    clean = tmp_path / "clean.relavium.yaml"
    clean.write_text(large_workflow(30), encoding="utf-8")
    broken = tmp_path / "broken.relavium.yaml"
    broken.write_text(large_workflow(30).replace("type: transform", "type: transfrom"),
                      encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM_WITH_EXIT_HOOK, "check", "--format", "json",
         str(clean), str(broken)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1  # errors found
    found = json.loads(result.stdout)  # all of it arrived: a large report parses whole
    assert len(found) >= 30 and {entry["path"] for entry in found} == {str(broken)}
    assert "interpreter teardown" not in result.stderr
    usage = subprocess.run([sys.executable, "-c", PROGRAM_WITH_EXIT_HOOK, "check", "--jobs", "0",
                            str(clean)], capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2 and "--jobs" in usage.stderr


def test_a_check_keeps_only_the_last_files_analysis(tmp_path: Path) -> None:
    # The last one is left for the process's exit to free at once; earlier ones are freed before
    # the next file is analysed, so checking many files never holds two analyses.
    from server.cli import check

    first, second = tmp_path / "a.relavium.yaml", tmp_path / "b.relavium.yaml"
    first.write_text(large_workflow(1), encoding="utf-8")
    second.write_text(large_workflow(2), encoding="utf-8")
    check._check_file(str(first))
    assert [result.path for result in check._last_analysis] == [str(first)]
    check._check_file(str(second))
    assert [result.path for result in check._last_analysis] == [str(second)]
