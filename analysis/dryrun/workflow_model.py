"""What a dry run reads of a file's analysis, built without the checks: the model, the graph and
what its agents resolve to across files, the same objects `analyze` builds (the same functions,
called the same way) — a run evaluates the model and reads no diagnostic but to count the errors
for its note (`analysis.dryrun.launch.error_count`), which a caller may count aside.

Only for a file a run can start: a workflow whose YAML composed into a `workflow` mapping. For
any other, `workflow_model` answers None and the caller analyses the file in full, since only the
full analysis's first error says why there is nothing to run (`launch.why_no_workflow`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analysis.diagnostics import Diagnostic
from analysis.document.graph import Graph, build_graph
from analysis.document.model import FileAgent, Workflow
from analysis.document.model_build import build_workflow
from analysis.document.source import SourceText
from analysis.document.yaml_read import read_yaml
from analysis.project.kinds import FileKind, document_kind
from analysis.project.workspace import Resolution, WorkspaceIndex


@dataclass(frozen=True)
class WorkflowModel:
    """The parts of an `AnalysisResult` a dry run reads (`launch.load`), with no diagnostics."""

    workflow: Workflow
    graph: Graph
    resolution: Resolution | None
    kind: FileKind = FileKind.WORKFLOW
    diagnostics: tuple[Diagnostic, ...] = field(default=(), init=False)

    @property
    def file_agent(self) -> FileAgent | None:
        """As `AnalysisResult.file_agent`."""
        return self.resolution.file_agent if self.resolution is not None else None


def workflow_model(
    text: str, path: str | None, workspace: WorkspaceIndex | None
) -> WorkflowModel | None:
    """The model `analyze(text, path, workspace=workspace)` builds, or None when the file is no
    workflow a run can start (an agent file, YAML that does not compose, no `workflow`
    mapping)."""
    if document_kind(path) is not FileKind.WORKFLOW:
        return None
    document = read_yaml(SourceText(text))
    if document.root is None and document.problems:
        return None
    workflow = build_workflow(document)
    if workflow.body is None:
        return None
    resolution = (workspace.resolve(path, workflow)
                  if workspace is not None and path is not None else None)
    return WorkflowModel(workflow, build_graph(workflow), resolution)
