"""What a path holds to the engine: a workflow, an agent, or nothing of Relavium's.

`file_kind(path)` is the one decision every surface shares (the CLI's folder walk and `check`, the
server's document filter and its analysis, the editors' patterns and the pre-commit hook mirror
it; their tests hold them to it). In order, first match wins:

1. a sample-scope sidecar (`<stem>.samples.json|yaml|yml`) is nothing: sample values;
2. any `*.yaml|yml` inside a `.relavium/agents/` folder is an agent — the engine's `list` parses
   every YAML there with `parseAgent` (apps/cli/src/workflows/catalog.ts), and `chat --agent <id>`
   looks for `<id>.agent.yaml`, `<id>.relavium.yaml` and `<id>.yaml` there
   (apps/cli/src/chat/agent-source.ts), so `agents/x.relavium.yaml` is an agent;
3. any `*.yaml|yml` inside a `.relavium/workflows/` folder is a workflow — `list` parses every YAML
   there with `parseWorkflow`, so `workflows/x.agent.yaml` is a workflow;
4. `*.agent.yaml|yml` is an agent (the format's name: docs/reference/contracts/agent-yaml-spec.md);
5. `*.relavium.yaml|yml`, and any other `*.yaml|yml` inside a `.relavium/` folder, is a workflow.

Names are compared case-insensitively, as before (`Triage.Relavium.YAML`); the folder names
`.relavium`, `agents` and `workflows` exactly, as the engine joins them.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import PurePath


class FileKind(StrEnum):
    WORKFLOW = "workflow"
    AGENT = "agent"


# What a command that runs a workflow (a dry run, a sample-scope run or sidecar) says of an agent.
NOT_A_WORKFLOW = ("this is an agent file, not a workflow: dry-run the workflow whose agent nodes "
                  "use it")


YAML_SUFFIXES = (".yaml", ".yml")
WORKFLOW_SUFFIXES = (".relavium.yaml", ".relavium.yml")
AGENT_SUFFIXES = (".agent.yaml", ".agent.yml")
PROJECT_FOLDER = ".relavium"
# Sample-scope sidecars (analysis.dryrun.samples) beside a workflow: sample values, not a workflow.
SIDECAR_SUFFIXES = (".samples.json", ".samples.yaml", ".samples.yml")


def _project_subfolder(path: PurePath) -> str | None:
    """The folder right under the innermost `.relavium/` that holds `path` (`agents`), or None."""
    parts = path.parent.parts
    for index in range(len(parts) - 1, -1, -1):
        if parts[index] == PROJECT_FOLDER:
            return parts[index + 1] if index + 1 < len(parts) else ""
    return None


def file_kind(path: PurePath) -> FileKind | None:
    """What `path` holds (see the module's order), or None for a file that is not Relavium's."""
    name = path.name.lower()
    if name.endswith(SIDECAR_SUFFIXES) or not name.endswith(YAML_SUFFIXES):
        return None
    folder = _project_subfolder(path)
    if folder == "agents":
        return FileKind.AGENT
    if folder == "workflows":
        return FileKind.WORKFLOW
    if name.endswith(AGENT_SUFFIXES):
        return FileKind.AGENT
    if name.endswith(WORKFLOW_SUFFIXES) or folder is not None:
        return FileKind.WORKFLOW
    return None


def document_kind(path: str | None) -> FileKind:
    """How to analyse a document named `path`: its `file_kind` (judged on the absolute path, so
    that `check x.yaml` run inside `.relavium/agents/` sees the folder), else a workflow — a file
    named explicitly, standard input and an unsaved buffer have always been read as one."""
    if path is None:
        return FileKind.WORKFLOW
    return file_kind(PurePath(os.path.abspath(path))) or FileKind.WORKFLOW
