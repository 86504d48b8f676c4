"""`relavium-lsp run FILE` on workflows whose values grow: the engine's size bounds fail the node
(ADR-0087 §2, size-bounds.ts 02eeb5f2), and a run of merges nesting a value ever deeper stops
at the engine's 500 node starts (ADR-0086 §4)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from analysis.dryrun.bounds import NODE_OUTPUT_BYTES
from tests.analysis.dryrun.test_bounds import LADDER_LEVELS, chain, ladder, ladder_size
from tests.analysis.dryrun.test_workflow_run import HEAD
from tests.server.cli.test_run_cli import run_cli


def test_a_ladder_of_concat_merges_ends_quickly_with_the_node_failed_as_the_engine_fails_it(
    tmp_path: Path,
) -> None:
    # 40 levels: 2^40 leaves through shared references, in a 9 KB file
    workflow = tmp_path / "ladder.relavium.yaml"
    workflow.write_text(HEAD + ladder(LADDER_LEVELS), encoding="utf-8")
    started = time.monotonic()
    result = run_cli(workflow, "--format", "json")
    assert time.monotonic() - started < 30
    assert result.returncode == 1, result.stderr
    answer = json.loads(result.stdout)
    failed = [node for node in answer["nodes"] if node["status"] == "failed"]
    level = next(level for level in range(LADDER_LEVELS) if ladder_size(level) > NODE_OUTPUT_BYTES)
    assert [(node["id"], node["error"]["code"]) for node in failed] == [(f"m{level}", "validation")]
    text = run_cli(workflow)
    assert (f"m{level} (merge) failed: validation: node `m{level}` output is "
            f"{ladder_size(level)} bytes, above the limit of {NODE_OUTPUT_BYTES}") in text.stdout


def test_a_chain_of_1500_merges_stops_at_the_500th_node_start(tmp_path: Path) -> None:
    # each merge wraps its one branch in a list; the engine fails the run `turn_limit` before its
    # 501st node start (ADR-0086 §4, limits.ts nodeDispatchesPerRun, engine.ts #step), so m498
    # is the last to run, its {} inside 499 lists, and the rest never start
    workflow = tmp_path / "chain.relavium.yaml"
    workflow.write_text(HEAD + chain(1500), encoding="utf-8")
    result = run_cli(workflow, "--format", "json")
    assert result.returncode == 1, result.stderr[-2000:]
    answer = json.loads(result.stdout)
    assert answer["error"]["code"] == "turn_limit" and answer["ok"] is False
    nodes = {node["id"]: node for node in answer["nodes"]}
    assert nodes["m498"]["value"] == json.loads("[" * 499 + "{}" + "]" * 499)
    assert (nodes["m499"]["status"], nodes["out"]["status"]) == ("not-run", "not-run")
    text = run_cli(workflow)
    assert text.returncode == 1, text.stderr[-2000:]
    assert "m498 (merge) ran: [[[[" in text.stdout
    assert "dry run failed: the run reached its limit of 500 node dispatches" in text.stderr
