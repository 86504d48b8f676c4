"""Starting a dry run from an analysis, shared by `relavium-lsp run` and the LSP commands so both
answer the same: one node's expression after its ancestors ran as the engine would run them
(`prepare` then `evaluate`), or the whole workflow (`run_whole`; see
`analysis.dryrun.runner`). Blocking: the server calls these from a thread, the command line
from its main thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeAlias

from analysis.diagnostics import Diagnostic, Severity
from analysis.dryrun.hints import synthesized_cause
from analysis.dryrun.presentation import DryRun
from analysis.dryrun.results import WorkflowRun
from analysis.dryrun.runner import Evaluate, run_workflow
from analysis.dryrun.samples import Samples, SampleScopeError, find_samples
from analysis.dryrun.scope import SampleScope, build_sample_scope
from analysis.dryrun.workflow_model import WorkflowModel
from analysis.project.kinds import NOT_A_WORKFLOW, FileKind
from sandbox import Outcome, Scope, ScopeError, WorkerPool
from sandbox.transport import Kind

if TYPE_CHECKING:  # not imported at run time: a run of a model alone never loads the checks
    from analysis.checks.analyze import AnalysisResult

    # What a run starts from: a whole analysis, or only the model of a file a run can start
    Analysed: TypeAlias = AnalysisResult | WorkflowModel


class DryRunError(Exception):
    """The run could not start (broken YAML, unknown node, bad samples file); the message says
    what to do. Not a sandbox result."""


def nothing_to_run(why: str) -> str:
    """Why a file is not a workflow a dry run can run, in `check`'s words."""
    return f"nothing to dry-run: {why}; `relavium-lsp check` lists every problem"


def why_no_workflow(result: Analysed) -> str:
    """Why an analysed file has no workflow model: its first error, in `check`'s words."""
    problem = next((d for d in result.diagnostics if d.severity == Severity.ERROR), None)
    return (f"{problem.message.strip()} (line {problem.range.start.line + 1})"
            if problem is not None else "it has no `workflow` mapping")


def load(
    result: Analysed, path: str | None, explicit_scope: str | None,
    given: Samples | None = None,
) -> tuple[Analysed, Samples]:
    """The samples for a run (`given`, else found as `find_samples` finds them); raises
    DryRunError when the run cannot start."""
    if result.kind is FileKind.AGENT:
        raise DryRunError(NOT_A_WORKFLOW)
    if result.workflow is None or result.graph is None or result.workflow.body is None:
        # not a workflow (broken or oversized YAML, no `workflow` mapping): a run of it would
        # run nothing and report success; say what `check` says instead
        raise DryRunError(nothing_to_run(why_no_workflow(result)))
    if given is not None:
        return result, given
    try:
        return result, find_samples(path, explicit_scope)
    except SampleScopeError as error:
        raise DryRunError(str(error)) from None


def pool_evaluator(pool: WorkerPool) -> Evaluate:
    def evaluate(source: str, kind: str, scope: Scope) -> Outcome:
        # a dry run shows the author their own error (issue 13 §1): the detail is opted into
        return pool.run(source, kind, scope, with_detail=True)  # type: ignore[arg-type]

    return evaluate


def prepare(
    result: Analysed,
    path: str | None,
    node_id: str,
    explicit_scope: str | None,
    pool: WorkerPool,
) -> tuple[SampleScope, Scope]:
    """The node's sample scope after its ancestors ran (blocking: they evaluate in `pool`);
    raises DryRunError when the run cannot start."""
    result, samples = load(result, path, explicit_scope)
    assert result.workflow is not None and result.graph is not None
    try:
        alone = build_sample_scope(result.workflow, result.graph, node_id, samples)
        if result.graph.cycle is not None:
            alone.notes.append("the workflow has a dependency cycle; its ancestors were not run")
            return alone, Scope.from_json(alone.scope)
        ancestors = set(result.graph.ancestors(node_id)) - {node_id}
        upstream = run_workflow(
            result.workflow, result.graph, pool_evaluator(pool), samples, members=ancestors,
            file_agent=result.file_agent, workers=pool.size,
        )
        if upstream.error is not None:
            # the run failed before any node (its context): the node would never run
            raise DryRunError(upstream.error["message"])
        sample = build_sample_scope(
            result.workflow, result.graph, node_id, samples, upstream.as_upstream()
        )
        sample.failure_hint = synthesized_cause(
            result.graph, upstream.nodes, result.workflow.nodes_by_id[node_id], node_id
        )
        return sample, Scope.from_json(sample.scope)
    except (SampleScopeError, ScopeError) as error:
        raise DryRunError(str(error)) from None


def evaluate(
    pool: WorkerPool, sample: SampleScope, scope: Scope, path: str | None = None
) -> DryRun:
    """Blocking: call from a thread (the server) or the main thread (the CLI)."""
    kind: Kind = sample.kind  # type: ignore[assignment]
    return DryRun(sample, pool.run(sample.source, kind, scope, with_detail=True), path)


def error_count(diagnostics: Iterable[Diagnostic]) -> int:
    """How many of an analysis's diagnostics are errors: the engine would refuse the file."""
    return sum(1 for d in diagnostics if d.severity == Severity.ERROR)


def run_whole(
    result: Analysed,
    path: str | None,
    explicit_scope: str | None,
    pool: WorkerPool,
    cancelled: Callable[[], bool] = lambda: False,
    samples: Samples | None = None,
    errors: Callable[[], int] | None = None,
) -> WorkflowRun:
    """The whole-workflow dry run (blocking) with `samples`, else the samples found from
    `explicit_scope`; raises DryRunError when it cannot start. `errors()`, asked once the run
    ended, is the file's error count when `result` is a model alone (by default, the errors
    among `result`'s diagnostics)."""
    result, samples = load(result, path, explicit_scope, samples)
    assert result.workflow is not None and result.graph is not None
    if result.graph.cycle is not None:
        raise DryRunError(
            "the workflow has a dependency cycle (" + " → ".join(result.graph.cycle)
            + "); the engine refuses to run it"
        )
    try:
        run = run_workflow(
            result.workflow, result.graph, pool_evaluator(pool), samples, cancelled=cancelled,
            file_agent=result.file_agent, workers=pool.size,
        )
    except SampleScopeError as error:  # inputs the engine's admission refuses
        raise DryRunError(str(error)) from None
    found = error_count(result.diagnostics) if errors is None else errors()
    if found:
        run.notes.insert(0, (
            f"the workflow has {found} error(s) (see `relavium-lsp check`): the engine would "
            "refuse to load it; this shows what its deterministic part would do anyway"
        ))
    return run
