"""`workflow_model`: the model `analyze` builds, without the checks, for every file a run can
start — and None for every file a run refuses (the full analysis then says why). A run of the
model is the run of the full analysis, node for node."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from analysis.checks.analyze import analyze
from analysis.document.yaml_nodes import YMapping
from analysis.dryrun.launch import DryRunError, load
from analysis.dryrun.runner import run_workflow
from analysis.dryrun.samples import SYNTHESIZED
from analysis.dryrun.workflow_model import workflow_model
from analysis.project.workspace import WorkspaceIndex
from sandbox import Outcome, Scope, evaluate
from tests.conftest import EXAMPLES, FIXTURES, REPO_ROOT

# every workflow and agent file the suite keeps, broken ones included
FILES = sorted([*FIXTURES.rglob("*.yaml"), *EXAMPLES.rglob("*.yaml")])


def in_process(source: str, kind: str, scope: Scope) -> Outcome:
    return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]


def shown(run: Any) -> list[dict[str, Any]]:
    return [{key: value for key, value in node.items() if key != "ms"}
            for node in run.to_json()["nodes"]]


def test_the_corpus_has_files_of_every_outcome() -> None:
    models = [workflow_model(path.read_text(encoding="utf-8"), str(path), None) for path in FILES]
    assert len(FILES) > 100
    assert any(model is None for model in models) and any(model is not None for model in models)


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_the_model_is_the_full_analysis_model_and_runs_the_same(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    full = analyze(text, str(path))
    model = workflow_model(text, str(path), None)
    try:
        load(full, str(path), None, SYNTHESIZED)
    except DryRunError:
        assert model is None  # refused: the full analysis's first error says why
        return
    assert model is not None and full.workflow is not None and full.graph is not None
    assert (model.kind, model.file_agent) == (full.kind, full.file_agent)
    assert model.graph.node_ids == full.graph.node_ids
    assert model.graph.cycle == full.graph.cycle
    if full.graph.cycle is not None:
        return  # refused before any node runs
    ran = run_workflow(model.workflow, model.graph, in_process, budget_s=5.0)
    expected = run_workflow(full.workflow, full.graph, in_process, budget_s=5.0)
    assert shown(ran) == shown(expected)
    assert ran.notes == expected.notes


def span(mapping: YMapping | None) -> tuple[int, int] | None:
    return (mapping.start, mapping.end) if mapping is not None else None


WORKSPACE_WORKFLOWS = sorted((FIXTURES / "workspace").rglob("*.relavium.yaml"))


@pytest.mark.parametrize("path", WORKSPACE_WORKFLOWS,
                         ids=lambda path: str(path.relative_to(FIXTURES)))
def test_agents_resolve_across_files_as_in_the_full_analysis(path: Path) -> None:
    root = str(next(parent for parent in path.parents if (parent / ".relavium").is_dir()))
    text = path.read_text(encoding="utf-8")
    full = analyze(text, str(path), workspace=WorkspaceIndex(root))
    model = workflow_model(text, str(path), WorkspaceIndex(root))
    assert model is not None and full.resolution is not None
    assert model.resolution is not None
    assert model.resolution.known_ids() == full.resolution.known_ids()
    assert full.file_agent is not None and model.file_agent is not None
    resolved = 0
    for agent_id in sorted(full.resolution.known_ids()):
        expected, found = full.file_agent(agent_id), model.file_agent(agent_id)
        # the same agent file's mapping (each index read the file itself)
        assert span(found) == span(expected)
        resolved += expected is not None
    assert resolved  # the fixture's agents are in agent files
