"""The workflows of a project, read as a workspace-wide question needs them (an agent's
references, its rename): the files `check`'s folder walk finds (kinds, excludes, `.gitignore`,
never through a link out of the folder), an editor's text for the ones it has open, the rest
read from disk with the bounded, regular-file-only reader.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from analysis.document.model import Workflow
from analysis.document.model_build import build_workflow
from analysis.document.source import SourceText
from analysis.document.yaml_read import read_yaml
from analysis.project.files import SourceTooLarge, read_regular_file, walk_workflow_files
from analysis.project.kinds import FileKind, file_kind


@dataclass(frozen=True)
class ProjectWorkflow:
    """One workflow file: its text and model, or (text or model None) why there is none."""

    path: str  # absolute
    text: str | None
    workflow: Workflow | None
    problem: str | None = None  # "cannot be read (…)", "does not parse"


def workflow_paths(root: str, excluded: Callable[[Path, bool], bool] | None = None
                   ) -> list[str]:
    """The workflow files under `root` (absolute paths, sorted), as `check ROOT` finds them."""
    found = walk_workflow_files(Path(root), excluded).files
    return [absolute for path in found
            if file_kind(Path(absolute := os.path.abspath(path))) is FileKind.WORKFLOW]


def read_workflow(path: str, text: str) -> ProjectWorkflow:
    """The model of one workflow's text (no checks run: only where things are named)."""
    document = read_yaml(SourceText(text))
    if document.root is None and document.problems:
        return ProjectWorkflow(path, text, None, "does not parse")
    return ProjectWorkflow(path, text, build_workflow(document))


def project_workflows(root: str, open_texts: Mapping[str, str],
                      excluded: Callable[[Path, bool], bool] | None = None
                      ) -> list[ProjectWorkflow]:
    """Every workflow under `root`: the walk's files and the open ones (`open_texts`, absolute
    path → the editor's text, which wins over the disk's), in path order."""
    inside = {path: text for path, text in open_texts.items()
              if os.path.commonpath([path, root]) == root
              and file_kind(Path(path)) is FileKind.WORKFLOW}
    found: list[ProjectWorkflow] = []
    for path in sorted({*workflow_paths(root, excluded), *inside}):
        text = inside.get(path)
        if text is None:
            try:
                text = read_regular_file(path)
            except SourceTooLarge as error:
                found.append(ProjectWorkflow(path, None, None, f"is too large ({error.size})"))
                continue
            except (OSError, UnicodeDecodeError) as error:
                reason = getattr(error, "strerror", None) or type(error).__name__
                found.append(ProjectWorkflow(path, None, None, f"cannot be read ({reason})"))
                continue
        found.append(read_workflow(path, text))
    return found
