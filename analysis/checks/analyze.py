"""`analyze`: one document's analysis — the YAML read, the model, the graph, every check (pure).

Contract:
- `analyze(text, path=None) -> AnalysisResult` never raises on any text. Its `diagnostics` are
  sorted by position then rule id, with inline suppressions (`# relavium-lsp: ignore[rule-id]`)
  already applied (the dropped ones are in `suppressed`). Positions are code-point columns.
- The path's kind (`analysis.project.kinds.document_kind`) decides what the text is: an agent
  file is validated as the engine's `parseAgent` does (`analysis.schema.agent_file`: the YAML
  reader's findings and the agent schema, plus the agents family's rules on its one agent
  (`AGENT_FILE_CHECKS`: the model's registry facts)) and its result has no `workflow` or
  `graph`; `kind` says which it was.
- `workflow` and `graph` are None when the YAML does not compose (syntax error, over 2 MiB):
  then `diagnostics` holds the `yaml-syntax` error, and a server keeps serving from the
  last good result — `current.last_good(previous)` picks it; its offsets refer to its own
  `source`, not to the new text.
- Severity is a per-diagnostic value: a caller remaps by `Diagnostic.rule` (see `RULES` for the
  default severity and summary of every rule id).
- A check (or the schema walk) that raises does not take the others down: it yields one
  `internal-error` diagnostic at the top of the file naming it (a bug to report, never expected).
- `analyze(text, path, should_stop=check)` calls `check()` between its stages and rules, and
  while it converts the YAML before each node, edge or other top-level list item, and raises
  `AnalysisStopped` once it answers True: a server stops analysing a superseded version.
- `analyze(text, path, previous=result)` gives the same result as without `previous` (the analysis
  of an earlier version of the same document); it reads again only the YAML list item or top-level
  entry an edit falls in when it can (`analysis.document.yaml_read.read_yaml`), takes over the
  declarations of the items that read shared (`analysis.document.model_build.build_workflow`),
  their graph edges, and the graph's links, ancestors and cycle while they are unchanged
  (`analysis.document.graph.build_graph`), and the schema walk's findings for the workflow lists and
  items whose text is unchanged (`analysis.schema.walk.SchemaMemo`, kept on the result as
  `schema_memo`: by text, so it holds whether the items were copied or moved), and the typed
  checks' expression types whose text and read types are unchanged
  (`analysis.types.dataflow.TypesMemo`, kept as `types_memo`). Declarations taken
  over are `previous`'s own objects, their scalar texts pointed at the new source (same text at
  their spans): `previous` stays valid — the items after the edit are copies, moved on by the edit's
  length.
- `analyze(text, path, previous=result)` takes over the branch gates leaked-branch reads while
  the graph's shape is unchanged (`analysis.document.gating.GatingMemo`, kept as `gating_memo`:
  by content, their bypassing edges placed at the new version's edges).
- `analyze(text, path, previous=result, take_over=True)` is for a caller that owns `result`
  alone (no other thread reads it: the analysis process's `server.lsp.worker.main.KeptAnalyses`):
  the items after the edit are moved in place instead of copied, so their declarations are
  taken over too. Once it returns having moved some (the edit changed the length and was read
  alone), `result` is given up (`given_up`): its `document`, `workflow` and `graph` are the new
  result's parts or stale, only its `source`, `path` and diagnostics hold, and it is never
  built on again (an analysis passed it reads afresh); otherwise it stays valid as without
  `take_over`. When the analysis stops or raises, `result` is first put back exactly as it was
  (tree moved back, scalar texts pointed at its source), so the next version can build on it.
  Caches on shared objects hold offsets relative to their scalar
  (`analysis.document.scalar_offsets.ScalarText`),
  which a move keeps right.
- `analyze(text, path, workspace=index)` also resolves a workflow's agents across files
  (`analysis.project.workspace.WorkspaceIndex`: `$ref` files and the project's
  agent files under `.relavium/`) for the cross-file rules (unknown-agent, unresolved-agent-file,
  ambiguous-agent, ungranted-tool). Without an index, or without a path, every rule judges the
  file alone, exactly as before. The index is read, and filled with the files it reads, but
  never told of `text` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from analysis.checks.context import RuleContext
from analysis.checks.registry import AGENT_FILE_CHECKS, EMITTERS
from analysis.checks.suppression import apply_suppressions
from analysis.diagnostics import Diagnostic, Position, Range, Severity
from analysis.document.gating import BranchGate, GatingMemo, gates_taken_over
from analysis.document.graph import Graph, build_graph
from analysis.document.model import FileAgent, Workflow
from analysis.document.model_build import build_workflow, point_back
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YamlDocument, YNode
from analysis.document.yaml_read import read_yaml
from analysis.project.kinds import FileKind, document_kind
from analysis.project.workspace import Resolution, WorkspaceIndex
from analysis.schema.agent_file import validate_agent_file
from analysis.schema.walk import SchemaMemo
from analysis.types.dataflow import TypesMemo

INTERNAL_ERROR = "internal-error"


@dataclass
class AnalysisResult:
    source: SourceText
    path: str | None
    document: YamlDocument
    workflow: Workflow | None
    graph: Graph | None
    diagnostics: list[Diagnostic]
    suppressed: list[Diagnostic] = field(default_factory=list)
    # Set once a `take_over` analysis took its tree and model: only `source`, `path`, the
    # diagnostics and `schema_memo` are still this result's.
    given_up: bool = field(default=False, repr=False, compare=False)
    # The schema walk's findings by unit text, for the next version
    # (`analysis.schema.walk.SchemaMemo`: bounded by this document; a version whose YAML does
    # not read keeps the previous one's).
    schema_memo: SchemaMemo | None = field(default=None, repr=False, compare=False)
    # The expression types the typed checks derived (`analysis.types.dataflow.TypesMemo`: values,
    # bounded by this document), for the next version; kept from the previous when none were.
    types_memo: TypesMemo | None = field(default=None, repr=False, compare=False)
    # The branch gates the leaked-branch rule derived (`analysis.document.gating.GatingMemo`:
    # by content), for the next version; kept from the previous when none were.
    gating_memo: GatingMemo | None = field(default=None, repr=False, compare=False)
    kind: FileKind = FileKind.WORKFLOW
    # What the workflow's agent_refs resolve to across files (with a workspace index and a path)
    resolution: Resolution | None = field(default=None, repr=False, compare=False)

    @property
    def file_agent(self) -> FileAgent | None:
        """An agent id → the valid agent file's mapping it resolves to (`Resolution.file_agent`),
        for the dataflow, the editor's types and the dry run; None judged alone."""
        return self.resolution.file_agent if self.resolution is not None else None

    def branch_gates(self) -> list[BranchGate]:
        """The graph's branch gates (a workflow's result only), taken over from `gating_memo`
        while it is this graph's shape: what the graph view and hover show on every version."""
        assert self.graph is not None
        return gates_taken_over(self.graph, self.gating_memo)[0]

    def last_good(self, previous: AnalysisResult | None) -> AnalysisResult | None:
        """This result if it has a model, else `previous` (the last one that had)."""
        return self if self.workflow is not None else previous


def _sort_key(diagnostic: Diagnostic) -> tuple[Position, Position, str, str]:
    return (diagnostic.range.start, diagnostic.range.end, diagnostic.rule, diagnostic.message)


class AnalysisStopped(Exception):
    """`analyze` was told to stop (its `should_stop` answered True)."""


def _never() -> bool:
    return False


def analyze(
    text: str, path: str | None = None, should_stop: Callable[[], bool] = _never,
    previous: AnalysisResult | None = None, take_over: bool = False,
    workspace: WorkspaceIndex | None = None,
) -> AnalysisResult:
    def checkpoint() -> None:
        if should_stop():
            raise AnalysisStopped

    checkpoint()
    # texts and findings: they hold whatever became of `previous`'s tree
    earlier_schema = previous.schema_memo if previous is not None else None
    earlier_types = previous.types_memo if previous is not None else None
    earlier_gating = previous.gating_memo if previous is not None else None
    if previous is not None and previous.given_up:
        previous = None  # its tree and model are another result's now: read afresh
    source = SourceText(text)
    document = read_yaml(source, previous.document if previous is not None else None, checkpoint,
                         take_over)
    if not take_over or previous is None:
        return _analysis(path, document, previous, (earlier_schema, earlier_types), checkpoint,
                         workspace, earlier_gating)
    try:
        result = _analysis(path, document, previous, (earlier_schema, earlier_types), checkpoint,
                         workspace, earlier_gating)
    except BaseException:
        # stopped (or a bug): `previous` is again what it was, for the next version to build on
        if document.moved is not None:
            document.moved.undo()
        if previous.workflow is not None:
            point_back(previous.workflow)
        raise
    if document.moved is not None:
        document.moved = None
        previous.given_up = True
    return result


def _internal_error(emitter: str, error: Exception) -> Diagnostic:
    return Diagnostic(
        Range(Position(0, 0), Position(0, 0)), Severity.ERROR, INTERNAL_ERROR,
        f"{emitter} failed ({type(error).__name__}: {error}); please report this "
        "bug with the file",
    )


def _agent_file_findings(source: SourceText, root: YNode | None) -> list[Diagnostic]:
    """The agents family's rules on an agent file (`AGENT_FILE_CHECKS`)."""
    found: list[Diagnostic] = []
    for rule_id, check in AGENT_FILE_CHECKS:
        try:
            found.extend(check(source, root))
        except Exception as error:  # a rule bug must not break the editor or the CLI
            found.append(_internal_error(f"rule {rule_id}", error))
    return found


def _analysis(path: str | None, document: YamlDocument, previous: AnalysisResult | None,
              earlier: tuple[SchemaMemo | None, TypesMemo | None], checkpoint: Callable[[], None],
              workspace: WorkspaceIndex | None = None,
              earlier_gating: GatingMemo | None = None) -> AnalysisResult:
    """The analysis of a document read (`analyze` after `read_yaml`); `earlier` is the previous
    version's memos, which outlive a given-up `previous`."""
    earlier_schema, earlier_types = earlier
    source = document.source
    kind = document_kind(path)
    if document.root is None and document.problems:
        return AnalysisResult(source, path, document, None, None,
                              sorted(document.problems, key=_sort_key), schema_memo=earlier_schema,
                              types_memo=earlier_types, gating_memo=earlier_gating, kind=kind)
    if kind is FileKind.AGENT:
        checkpoint()
        problems, memo = validate_agent_file(source, document.root, earlier_schema)
        problems.extend(_agent_file_findings(source, document.root))
        return AnalysisResult(source, path, document, None, None,
                              sorted([*document.problems, *problems], key=_sort_key),
                              schema_memo=memo, kind=kind)
    checkpoint()
    workflow = build_workflow(document, previous.workflow if previous is not None else None)
    checkpoint()
    graph = build_graph(workflow, previous.graph if previous is not None else None)
    context = RuleContext(source, document, workflow, graph, earlier_schema, workspace, path,
                          earlier_types, earlier_gating)
    found: list[Diagnostic] = []
    for emitter in EMITTERS:
        checkpoint()
        try:
            found.extend(emitter.findings(context))
        except Exception as error:  # a rule bug must not break the editor or the CLI
            found.append(_internal_error(emitter.name, error))
    kept, suppressed = apply_suppressions(context, found)
    return AnalysisResult(source, path, document, workflow, graph,
                          sorted(kept, key=_sort_key), sorted(suppressed, key=_sort_key),
                          schema_memo=context.schema_memo or earlier_schema,
                          resolution=context.resolution,
                          types_memo=context.types_memo or earlier_types,
                          gating_memo=context.gating_memo or earlier_gating)
