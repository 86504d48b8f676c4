"""The dry run's texts for the user: a one-line summary, a bounded log detail."""

from analysis.checks.analyze import analyze
from analysis.dryrun import launch, presentation
from sandbox import WorkerPool

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: big
  nodes:
    - { id: start, type: input }
    - { id: huge, type: transform, transform: '"é".repeat(100000)' }
  edges: [{ from: start, to: huge }]
"""


def test_a_huge_value_is_truncated_in_the_log_but_whole_in_the_answer() -> None:
    with WorkerPool() as pool:
        sample, scope = launch.prepare(analyze(WORKFLOW, None), None, "huge", None, pool)
        run = launch.evaluate(pool, sample, scope)
    assert run.outcome.ok
    assert run.to_json()["value"] == "é" * 100_000
    detail = run.detail()
    assert len(detail) < presentation.LOG_VALUE_LIMIT + 1_000
    assert "truncated in the log" in detail
    assert len(run.summary()) < 200


def test_the_summary_keeps_whitespace_as_it_is() -> None:
    """Runs of spaces and newlines inside a value are the author's data: not collapsed."""
    text = WORKFLOW.replace('\'"é".repeat(100000)\'', "'({ a: \"x    y\", b: \"1\\n2\" })'")
    with WorkerPool() as pool:
        sample, scope = launch.prepare(analyze(text, None), None, "huge", None, pool)
        run = launch.evaluate(pool, sample, scope)
    assert run.summary() == 'huge → {"a": "x    y", "b": "1\\n2"}'
