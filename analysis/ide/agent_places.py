"""An agent file's agent across its project: every workflow `agent_ref` resolving to it (its
references), and its rename everywhere, or a clear refusal.

Contract:
- `agent_uses(index, agent, workflows)` → per workflow (in the order given) that resolves some
  `agent_ref` to `agent`'s file, the occurrences (`analysis.ide.navigation`) of those refs. A
  workflow resolves an id in the engine's order (`Resolution.agent`, see
  `analysis.project.workspace`): an inline agent with the id hides the file's, and two files
  defining it leave it unresolved — neither is a use of this file.
- `plan_agent_rename(index, agent, workflows, new_id, rename_file)` → `AgentRename`: per file
  (the agent file, each workflow using it) the replacements in its text's offsets, and, with
  `rename_file` and a file name that is the id plus its suffix (`summarizer.agent.yaml`), the
  file's new path and every `$ref` naming the file rewritten to it. Raises `RenameRefused` for an
  id the engine refuses (`kebabIdSchema`, packages/shared/src/common.ts 839f2bd), one another
  agent a workflow sees already has, a new file name already taken, a workflow that may use the
  agent but cannot be read or parsed now, or a place whose source cannot be mapped exactly.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from analysis.document.edits import Replacement
from analysis.document.scalar_offsets import ScalarText
from analysis.document.yaml_nodes import YScalar
from analysis.ide.navigation import Occurrence, SymbolKind, symbol_index
from analysis.ide.rename import RenameRefused, check_new_id, renamed_in
from analysis.project.kinds import FileKind, file_kind
from analysis.project.workflows import ProjectWorkflow
from analysis.project.workspace import AgentEntry, Resolution, WorkspaceIndex

# The names an agent file may have whose stem is its id, longest first: the format's own and the
# ones `chat --agent <id>` looks for in `.relavium/agents/` (apps/cli/src/chat/agent-source.ts).
ID_NAMED_SUFFIXES = (".agent.yaml", ".agent.yml", ".relavium.yaml", ".relavium.yml", ".yaml",
                     ".yml")


@dataclass(frozen=True)
class AgentUse:
    """A workflow that names the agent, and where (its `agent_ref`s)."""

    workflow: ProjectWorkflow
    resolution: Resolution
    places: list[Occurrence]


@dataclass
class AgentRename:
    """What renaming an agent file's agent changes: text replacements per file (absolute path),
    and the file's own rename (old path, new path) when its name follows the id."""

    edits: dict[str, list[Replacement]] = field(default_factory=dict)
    file_rename: tuple[str, str] | None = None


def _resolves_here(resolution: Resolution, agent: AgentEntry) -> bool:
    found = resolution.agent(agent.id)
    return isinstance(found, AgentEntry) and found.path == agent.path


def _resolved(index: WorkspaceIndex, workflows: Sequence[ProjectWorkflow]
              ) -> list[tuple[ProjectWorkflow, Resolution]]:
    return [(item, index.resolve(item.path, item.workflow)) for item in workflows
            if item.workflow is not None]


def agent_uses(index: WorkspaceIndex, agent: AgentEntry,
               workflows: Sequence[ProjectWorkflow]) -> list[AgentUse]:
    return _uses(agent, _resolved(index, workflows))


def _uses(agent: AgentEntry, resolved: list[tuple[ProjectWorkflow, Resolution]]
          ) -> list[AgentUse]:
    uses: list[AgentUse] = []
    for item, resolution in resolved:
        assert item.workflow is not None
        if not _resolves_here(resolution, agent):
            continue
        places = [place for place in symbol_index(item.workflow).references(
            SymbolKind.AGENT, agent.id) if not place.is_definition]
        if places:
            uses.append(AgentUse(item, resolution, places))
    return uses


def id_named_suffix(path: str, agent_id: str) -> str | None:
    """The suffix after the id when the file's name is the id plus one (`x.agent.yaml`)."""
    name = os.path.basename(path)
    return next((suffix for suffix in ID_NAMED_SUFFIXES if name == agent_id + suffix), None)


def plan_agent_rename(index: WorkspaceIndex, agent: AgentEntry,
                      workflows: Sequence[ProjectWorkflow], new_id: str,
                      rename_file: bool) -> AgentRename:
    check_new_id(SymbolKind.AGENT, new_id)
    plan = AgentRename()
    if new_id == agent.id:
        return plan
    _refuse_unreadable(agent, workflows)
    resolved = _resolved(index, workflows)
    _refuse_taken(index, agent, resolved, new_id)
    id_scalar = agent.mapping.get("id")
    assert id_scalar is not None and isinstance(id_scalar.value, YScalar)
    id_text = ScalarText(id_scalar.value, agent.source)
    if not id_text.exact:
        raise RenameRefused(f"the id in {agent.path} is written in a way the server cannot map "
                            "exactly; rename it there by hand first")
    plan.edits[agent.path] = [renamed_in(id_text, (0, len(id_text.value)), new_id)]
    for use in _uses(agent, resolved):
        replaced = []
        for place in use.places:
            if not place.exact:
                raise RenameRefused(f"an agent_ref to '{agent.id}' in {use.workflow.path} is "
                                    "written in a way the server cannot map exactly; rename "
                                    "that one by hand first")
            replaced.append(renamed_in(place.text, place.decoded, new_id))
        plan.edits[use.workflow.path] = replaced
    suffix = id_named_suffix(agent.path, agent.id) if rename_file else None
    if suffix is not None:
        target = os.path.join(os.path.dirname(agent.path), new_id + suffix)
        if file_kind(PurePath(target)) is FileKind.AGENT:
            if os.path.lexists(target):
                raise RenameRefused(f"{target} already exists, so the agent file cannot take "
                                    "its new id's name; rename or remove that file first")
            plan.file_rename = (agent.path, target)
            _rewrite_refs(agent, resolved, new_id + suffix, plan)
    return plan


def _refuse_unreadable(agent: AgentEntry, workflows: Sequence[ProjectWorkflow]) -> None:
    """A workflow that cannot be read or parsed now may name the agent: the rename would miss
    its places (one that does not even hold the id's characters cannot)."""
    for item in workflows:
        if item.workflow is None and (item.text is None or agent.id in item.text):
            raise RenameRefused(f"{item.path} {item.problem} and may name '{agent.id}'; fix it, "
                                "then rename")


def _refuse_taken(index: WorkspaceIndex, agent: AgentEntry,
                  resolved: list[tuple[ProjectWorkflow, Resolution]], new_id: str) -> None:
    project = index.project_of(agent.path)
    taken = index.folder_agents(project)[1].get(new_id) if project is not None else None
    if taken:
        raise RenameRefused(f"the agent file {taken[0].path} already defines '{new_id}'; pick "
                            "another id")
    for item, resolution in resolved:
        assert item.workflow is not None
        sees = any(file.path == agent.path
                   for file in [*resolution.folder, *(ref.file for ref in resolution.refs)])
        if not sees:
            continue
        others = [found for found in resolution.agents_named(new_id) if found.path != agent.path]
        if others:
            raise RenameRefused(f"{item.path} also resolves '{new_id}' to {others[0].path}; "
                                "pick another id")
        inline = item.workflow.agents_by_id.get(new_id)
        if inline is not None and not inline.is_ref and _resolves_here(resolution, agent) and \
                symbol_index(item.workflow).references(SymbolKind.AGENT, agent.id):
            raise RenameRefused(f"{item.path} has an inline agent '{new_id}', which would take "
                                "over its agent_refs to this agent; pick another id")


def _rewrite_refs(agent: AgentEntry, resolved: list[tuple[ProjectWorkflow, Resolution]],
                  new_name: str, plan: AgentRename) -> None:
    """Each `$ref` naming the renamed file gets its new name (the path's last part)."""
    old_name = os.path.basename(agent.path)
    for item, resolution in resolved:
        assert item.workflow is not None
        for ref in resolution.refs:
            if ref.file.path != agent.path:
                continue
            text = ScalarText(ref.value, item.workflow.source)
            value = text.value
            if not text.exact or value.replace("\\", "/").rsplit("/", 1)[-1] != old_name:
                line = item.workflow.source.position(ref.value.start).line + 1
                raise RenameRefused(f"the $ref on line {line} of {item.path} names the agent "
                                    "file in a way the server cannot rewrite exactly; write it "
                                    "as a plain path first")
            plan.edits.setdefault(item.path, []).append(
                renamed_in(text, (len(value) - len(old_name), len(value)), new_name))
