"""`check --jobs`: a process pool gives byte-for-byte the serial run's output and exit code."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.document.yaml_profile import MAX_SOURCE_BYTES
from tests.conftest import CLEAN_WORKFLOW, relavium_lsp

CLEAN = CLEAN_WORKFLOW
BROKEN = CLEAN.replace("type: input }", "type: input, colour: 'Größe 😀' }")
WARNING_ONLY = CLEAN.replace("  edges: []", "    - { id: lone, type: transform, transform: '1' }\n"
                                            "  edges: []")


def check(*args: str, cwd: Path) -> tuple[int, str, str]:
    result = relavium_lsp("check", *args, cwd=cwd)
    return result.returncode, result.stdout, result.stderr


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 files of every outcome: clean, errors, warnings only, unreadable, oversized."""
    root = tmp_path_factory.mktemp("many")
    kinds = [CLEAN, BROKEN, WARNING_ONLY]
    for index in range(36):
        (root / f"w{index:02}.relavium.yaml").write_text(kinds[index % 3], encoding="utf-8")
    (root / "x-latin1.relavium.yaml").write_bytes("label: 'Größe'\n".encode("latin-1"))
    (root / "x-huge.relavium.yaml").write_text("#" * (MAX_SOURCE_BYTES + 1), encoding="utf-8")
    (root / "x-empty.relavium.yaml").write_text("", encoding="utf-8")
    (root / "x-syntax.relavium.yaml").write_text("a: [\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("output_format", ["text", "json", "github"])
def test_parallel_output_and_exit_code_equal_the_serial_run(
    many: Path, output_format: str
) -> None:
    serial = check("--jobs", "1", "--format", output_format, ".", cwd=many)
    assert serial[0] == 2  # the Latin-1 file is an I/O error
    assert "x-latin1.relavium.yaml: cannot read" in serial[2]
    assert serial[1].count("w01.relavium.yaml") >= 1
    for jobs in ("2", "3"):
        assert check("--jobs", jobs, "--format", output_format, ".", cwd=many) == serial
    assert check("--format", output_format, ".", cwd=many) == serial


def test_exit_1_is_kept_in_parallel(many: Path) -> None:
    files = [f"w{index:02}.relavium.yaml" for index in range(36)]
    serial = check("--jobs", "1", *files, cwd=many)
    assert serial[0] == 1
    assert check("--jobs", "2", *reversed(files), cwd=many)[0] == 1
    # The order is the order given, not the order the workers finish in.
    parallel = check("--jobs", "2", *reversed(files), cwd=many)[1]
    headers = [line.split(":")[0] for line in parallel.splitlines() if not line.startswith(" ")]
    assert headers == sorted(headers, reverse=True)


@pytest.mark.parametrize("jobs", ["0", "-1", "many"])
def test_a_job_count_below_one_is_a_usage_error(many: Path, jobs: str) -> None:
    code, _, err = check("--jobs", jobs, ".", cwd=many)
    assert code == 2
    assert "--jobs: expected a whole number of processes, 1 or more" in err
