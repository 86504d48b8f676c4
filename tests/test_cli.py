"""The console script's contract: version, subcommands, usage errors."""

import subprocess
import sys
from importlib.metadata import version

import pytest

from server.cli import main


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


@pytest.mark.parametrize("name", ["serve", "check", "run", "eval", "schema"])
def test_every_subcommand_has_help(name: str) -> None:
    result = run_cli(name, "--help")
    assert result.returncode == 0, result.stderr
    assert f"relavium-lsp {name}" in result.stdout


def test_unknown_option_is_a_usage_error() -> None:
    assert run_cli("check", "--no-such-flag", "x").returncode == 2
