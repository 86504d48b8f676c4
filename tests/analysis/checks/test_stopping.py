"""`analyze(…, should_stop=…)`: a server stops analysing a superseded version at the next
checkpoint instead of finishing it (issue 12, item 4)."""

from __future__ import annotations

import pytest

import analysis.checks.analyze as analyze_module
from analysis.checks.analyze import AnalysisStopped, analyze
from analysis.checks.registry import RULES
from analysis.document.model import Workflow
from analysis.document.yaml_nodes import YamlDocument
from tests.analysis.large_workflow import large_workflow


def test_analysis_checks_between_every_stage_and_rule() -> None:
    asked = 0

    def never() -> bool:
        nonlocal asked
        asked += 1
        return False

    result = analyze(large_workflow(1), None, never)
    assert result.workflow is not None
    assert asked >= len(RULES) + 2  # before reading, before the model, before each rule


@pytest.mark.parametrize("after", [0, 1, 5])
def test_analysis_stops_once_told_to(after: int) -> None:
    asked = 0

    def stop_after() -> bool:
        nonlocal asked
        asked += 1
        return asked > after

    with pytest.raises(AnalysisStopped):
        analyze(large_workflow(1), None, stop_after)
    assert asked == after + 1  # it stopped at the first checkpoint that said so


def test_the_yaml_conversion_checks_before_each_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """Converting the YAML is most of an analysis: a superseded one checked only after it ran
    on (over half a second at 5,000 nodes) while the next version waited."""
    asked = 0
    asked_before_model: list[int] = []
    real_build_workflow = analyze_module.build_workflow

    def never() -> bool:
        nonlocal asked
        asked += 1
        return False

    def build_workflow(document: YamlDocument, previous: Workflow | None = None) -> Workflow:
        asked_before_model.append(asked)
        return real_build_workflow(document, previous)

    monkeypatch.setattr(analyze_module, "build_workflow", build_workflow)
    result = analyze(large_workflow(10), None, never)
    assert result.workflow is not None
    assert asked_before_model[0] >= len(result.workflow.nodes)

    asked = 0

    def stop_in_conversion() -> bool:
        nonlocal asked
        asked += 1
        return asked == 3  # the first check after the one before reading

    asked_before_model.clear()
    with pytest.raises(AnalysisStopped):
        analyze(large_workflow(10), None, stop_in_conversion)
    assert asked_before_model == []  # it stopped before the model was built
