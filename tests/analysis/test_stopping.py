"""`analyze(…, should_stop=…)`: a server stops analysing a superseded version at the next
checkpoint instead of finishing it (issue 12, item 4)."""

from __future__ import annotations

import pytest

from analysis import AnalysisStopped, analyze
from analysis.rules import RULES
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
