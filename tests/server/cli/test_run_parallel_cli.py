"""`relavium-lsp run FILE` evaluates a step's nodes on a worker per core at once (issue 26): what
it prints is exactly what the same run answers evaluating them one after another in process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from analysis.checks.analyze import analyze
from analysis.dryrun.runner import run_workflow
from analysis.dryrun.samples import parse_samples
from sandbox import Outcome, Scope, evaluate
from tests.analysis.dryrun.chained_workflow import SAMPLES, chained_workflow


def in_process(source: str, kind: str, scope: Scope) -> Outcome:
    return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]


def without_times(answer: dict[str, Any]) -> dict[str, Any]:
    for node in answer["nodes"]:
        del node["ms"]
    return answer


def test_a_whole_run_prints_what_the_serial_run_answers(tmp_path: Path) -> None:
    text = chained_workflow(24, length=2)
    workflow, samples = tmp_path / "chained.relavium.yaml", tmp_path / "samples.json"
    workflow.write_text(text)
    samples.write_text(SAMPLES)
    printed = subprocess.run(
        [sys.executable, "-m", "server", "run", str(workflow), "--scope", str(samples),
         "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )
    assert printed.returncode == 0, printed.stderr
    result = analyze(text)
    assert result.workflow is not None and result.graph is not None
    serial = run_workflow(result.workflow, result.graph, in_process,
                          parse_samples(SAMPLES, "samples.json", "explicit", is_json=True))
    assert serial.ok
    assert without_times(json.loads(printed.stdout)) == without_times(serial.to_json())
