"""The workspace agent index: every agent a workflow can name with `agent_ref`, across files.

What a workflow resolves, in order (the engine's `buildRunPlan`, packages/core/src/dag.ts
`resolveAgents`, HodeTech/Relavium 839f2bd):

1. its inline `agents:` entries — they always win: the host registry fills only ids no inline
   agent has;
2. the host's registry of resolved agents (`BuildRunPlanOptions.agents`), which the engine's
   documents fill with the workflow's `{ $ref: path }` files (packages/shared/src/workflow.ts
   `AgentRefSchema`: "the engine resolves the path against the workspace agent registry") and the
   project's `.relavium/agents/` folder (docs/reference/contracts/config-spec.md: "Opening a
   workspace loads every `*.relavium.yaml` and `*.agent.yaml` under `<projectRoot>/.relavium/`").

No engine surface fills that registry yet (ADR-0094, 2026-09-02: "`BuildRunPlanOptions.agents`
exists … and no surface populates it"; apps/cli/src/engine/providers.ts 0fd9c05: a `$ref` agent is
"not resolvable in the CLI yet"), so the registry's sources are the documents' word, and what they
leave open is decided here, quietly:

- a `$ref` path is relative to the workflow file's folder (every engine example is `./x.agent.yaml`
  or `../agents/x.agent.yaml`), must stay inside the index's root (the project) — never through a
  link out of it — and must be a regular file within the size limit that validates as one agent
  (`AgentSchema`, whatever its name); for a workflow in no project a `$ref` out of the root is
  not read and not judged (nothing bounds it);
- the project is the nearest folder at or above the workflow (up to the root) holding `.relavium/`;
  its agents are the files under `.relavium/` that are agents by `analysis.project.kinds.file_kind`:
  every YAML file in `.relavium/agents/` (the engine's `relavium list` parses those,
  apps/cli/src/workflows/catalog.ts) and every `*.agent.yaml|yml` outside `workflows/`
  (config-spec.md): the wider set, so that no agent the engine might load is taken for a
  missing one.

Files are read on demand with the bounded reader (`analysis.project.files.read_bounded`) and kept;
`update(path, text)` replaces one file's entry with an editor's text, `update(path, None)` forgets
it (it is read again from disk when next needed, or found gone): one changed file recomputes only
its own entry. At most `MAX_AGENT_FILES` agent files are indexed; past that the index says it is
`incomplete` and nothing is judged missing.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePath

from analysis.diagnostics import Range, Severity
from analysis.document.model import AgentDecl, Workflow
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YEntry, YMapping, YScalar, YSequence
from analysis.document.yaml_read import read_yaml
from analysis.project.files import SourceTooLarge, read_bounded
from analysis.project.kinds import PROJECT_FOLDER, FileKind, file_kind
from analysis.schema.agent_file import validate_agent_file
from analysis.schema.subset import string_items

MAX_AGENT_FILES = 2000
# The system prompt's first lines, for a hover: enough to recognise the agent, never the whole.
PROMPT_HEAD_LINES = 3
PROMPT_HEAD_CHARS = 240


@dataclass(frozen=True)
class AgentEntry:
    """One agent defined in an agent file: what hover, checks and navigation read of it."""

    id: str
    path: str  # absolute
    source: SourceText
    mapping: YMapping
    id_span: tuple[int, int]  # of the id's value, in `source`
    valid: bool  # the file validates as an agent (its own diagnostics say why not)

    @property
    def range(self) -> Range:
        return self.source.range(*self.id_span)

    def text(self, key: str) -> str | None:
        entry = self.mapping.get(key)
        if entry is not None and isinstance(entry.value, YScalar) and \
                isinstance(entry.value.value, str):
            return entry.value.value
        return None

    @property
    def model(self) -> str | None:
        return self.text("model")

    @property
    def provider(self) -> str | None:
        return self.text("provider")

    @property
    def tools(self) -> tuple[str, ...] | None:
        """The tools the agent grants, or None when they are not known before a run: its
        `mcp_servers` add the tools their servers offer when the run starts (ADR-0094 §2)."""
        return declared_grant(self.mapping)

    @property
    def output_schema(self) -> YEntry | None:
        return self.mapping.get("output_schema")

    @property
    def input_schema(self) -> YEntry | None:
        return self.mapping.get("input_schema")

    @property
    def system_prompt_head(self) -> str | None:
        prompt = self.text("system_prompt")
        if prompt is None:
            return None
        head = "\n".join(prompt.splitlines()[:PROMPT_HEAD_LINES])[:PROMPT_HEAD_CHARS]
        return head if head == prompt else head + "…"


def declared_grant(agent: YMapping) -> tuple[str, ...] | None:
    """The tools an agent mapping grants, or None when not known before the run (MCP servers
    complete the grant when the run starts, ADR-0094 §2; a `tools` that is not a list of
    strings is invalid-value's)."""
    servers = agent.get("mcp_servers")
    if servers is not None and not (isinstance(servers.value, YSequence)
                                    and not servers.value.items):
        return None
    tools = agent.get("tools")
    if tools is None:
        return ()
    granted = string_items(tools.value)
    return None if granted is None else tuple(str(item.value) for item in granted)


@dataclass(frozen=True)
class AgentFile:
    """An agent file as the index read it: its agent, or why it cannot be used."""

    path: str
    agent: AgentEntry | None
    # "does not exist", "is not a valid agent (2 errors)", …; None with no agent: not read (a
    # `$ref` out of the root of a workflow in no project), so neither usable nor judged.
    problem: str | None


@dataclass(frozen=True)
class RefTarget:
    """A workflow's `{ $ref: path }` entry and what it resolves to."""

    decl: AgentDecl
    value: YScalar  # the `$ref` value
    file: AgentFile


@dataclass
class Resolution:
    """What one workflow's `agent_ref`s can resolve to, in the engine's order."""

    workflow: Workflow
    refs: list[RefTarget]
    folder: list[AgentFile]  # the project's .relavium/agents/, in name order
    folder_by_id: dict[str, list[AgentEntry]]  # its agents by id (shared: never changed)
    # Every source was read: no `$ref` failed and the index was not cut short.
    complete: bool
    in_project: bool

    def agents_named(self, agent_id: str) -> list[AgentEntry]:
        """The file agents with this id, each file once (a `$ref` into the folder is one), the
        `$ref` files' first."""
        found = [ref.file.agent for ref in self.refs
                 if ref.file.agent is not None and ref.file.agent.id == agent_id]
        unique: dict[str, AgentEntry] = {}
        for agent in [*found, *self.folder_by_id.get(agent_id, ())]:
            unique.setdefault(agent.path, agent)
        return list(unique.values())

    def agent(self, agent_id: str) -> AgentDecl | AgentEntry | None:
        """The agent `agent_ref: agent_id` resolves to: the inline one first, then the one file
        agent with the id; None when none, or when two files define it (which one a run would
        use is not defined)."""
        inline = self.workflow.agents_by_id.get(agent_id)
        if inline is not None and not inline.is_ref:
            return inline
        named = self.agents_named(agent_id)
        return named[0] if len(named) == 1 else None

    def file_agent(self, agent_id: str) -> YMapping | None:
        """The mapping of the valid agent file `agent_ref: agent_id` resolves to, or None (an
        inline agent, none, or an invalid file): for `Workflow.output_schema_of`."""
        agent = self.agent(agent_id)
        return agent.mapping if isinstance(agent, AgentEntry) and agent.valid else None

    def known_ids(self) -> set[str]:
        ids = {agent.id for agent in self.workflow.agents if agent.id and not agent.is_ref}
        ids.update(ref.file.agent.id for ref in self.refs if ref.file.agent is not None)
        ids.update(self.folder_by_id)
        return ids


class WorkspaceIndex:
    """The agent files under `root` (absolute; a link out of it is never followed)."""

    def __init__(self, root: str, max_agent_files: int = MAX_AGENT_FILES) -> None:
        self.root = os.path.abspath(root)
        self._real_root = os.path.realpath(self.root)
        self._max = max_agent_files
        self._files: dict[str, AgentFile] = {}
        # a project's agents folder → its agent files in name order, and their agents by id
        self._folders: dict[str, tuple[list[AgentFile], dict[str, list[AgentEntry]]]] = {}
        self.incomplete = False
        # The language server resolves on its analysis threads while its event loop updates:
        # one caller at a time keeps the entries and listings consistent.
        self._lock = threading.RLock()
        # the paths whose entry is an editor's text (`update(path, text)`), not the disk's
        self._buffers: set[str] = set()

    def update(self, path: str, text: str | None) -> None:
        """`path` now holds `text` (an editor's), or changed on disk (None: read it again when
        next needed). Only its own entry, and the listing of the folder it is in, change."""
        with self._lock:
            path = os.path.abspath(path)
            self._files.pop(path, None)
            for folder in [folder for folder in self._folders
                           if os.path.commonpath([folder, path]) == folder]:
                del self._folders[folder]
            self._buffers.discard(path)
            if text is not None:
                self._files[path] = _agent_file(path, text)
                self._buffers.add(path)

    def forget_disk(self) -> None:
        """Read every file and folder from disk again when next needed (the editor's texts
        stay): for a caller that is not told when files change on disk."""
        with self._lock:
            self._files = {path: self._files[path] for path in self._buffers}
            self._folders.clear()
            self.incomplete = False

    def agent_file(self, path: str) -> AgentFile:
        """The agent file at `path` (absolute), read if not yet indexed."""
        with self._lock:
            path = os.path.abspath(path)
            known = self._files.get(path)
            if known is not None:
                return known
            if len(self._files) >= self._max:
                self.incomplete = True
                return AgentFile(path, None, f"was not read: the index holds {self._max} agent "
                                 "files at most")
            read = self._read(path)
            file = read if isinstance(read, AgentFile) else _agent_file(path, read)
            self._files[path] = file
            return file

    def project_of(self, path: str) -> str | None:
        """The project folder of a file: the nearest folder above it, inside the root, that
        holds `.relavium/`."""
        return _nearest_project(path, self.root)

    def folder_agents(self, project: str) -> tuple[list[AgentFile], dict[str, list[AgentEntry]]]:
        """The agent files of a project's `.relavium/` (see `_project_agent_paths`), and their
        agents by id."""
        with self._lock:
            folder = os.path.join(project, PROJECT_FOLDER)
            known = self._folders.get(folder)
            if known is None:
                paths, unlisted = _project_agent_paths(folder)
                # A folder that cannot be listed may hold any agent: it keeps the resolution open.
                files = [*map(self.agent_file, paths),
                         *(AgentFile(path, None, "cannot be listed") for path in unlisted)]
                by_id: dict[str, list[AgentEntry]] = {}
                for file in files:
                    if file.agent is not None:
                        by_id.setdefault(file.agent.id, []).append(file.agent)
                known = self._folders[folder] = (files, by_id)
            return known

    def resolve(self, path: str, workflow: Workflow) -> Resolution:
        """What `workflow` (read from `path`) can resolve its `agent_ref`s to."""
        with self._lock:
            path = os.path.abspath(path)
            values = list(_ref_values(workflow))
            project = self.project_of(path)
            refs = [RefTarget(decl, value, self._ref_file(path, value, project is not None))
                    for decl, value in values if value is not None]
            folder, folder_by_id = self.folder_agents(project) if project is not None else ([], {})
            # A `$ref` without a usable path (invalid-value's), or a file whose id could not be
            # read, may hold any agent.
            complete = not self.incomplete and len(refs) == len(values) and all(
                file.agent is not None for file in [*(ref.file for ref in refs), *folder])
            return Resolution(workflow, refs, folder, folder_by_id, complete, project is not None)

    def _ref_file(self, workflow_path: str, value: YScalar, in_project: bool) -> AgentFile:
        target = os.path.normpath(os.path.join(os.path.dirname(workflow_path),
                                               str(value.value)))
        if not self._inside(target):
            if not in_project:  # no project bounds it: not read, and nothing judged of it
                return AgentFile(target, None, None)
            return AgentFile(target, None, "is outside the project: a $ref names a file inside "
                                           f"{self.root}")
        return self.agent_file(target)

    def _inside(self, path: str) -> bool:
        return os.path.commonpath([path, self.root]) == self.root

    def _read(self, path: str) -> AgentFile | str:
        """The file's text, or an AgentFile saying why it cannot be read."""
        try:
            real = os.path.realpath(path, strict=True)
            mode = os.stat(real).st_mode
        except FileNotFoundError:
            return AgentFile(path, None, "does not exist")
        except OSError as error:
            return AgentFile(path, None, f"cannot be read ({_reason(error)})")
        except ValueError:  # a NUL in the path: no file has that name
            return AgentFile(path, None, "does not exist")
        if os.path.commonpath([real, self._real_root]) != self._real_root:
            return AgentFile(path, None, "is a symbolic link to a file outside the project")
        if not stat.S_ISREG(mode):
            return AgentFile(path, None, "is not a regular file")
        try:
            with open(real, "rb") as handle:
                return read_bounded(handle, os.fstat(handle.fileno()).st_size)
        except SourceTooLarge as error:
            return AgentFile(path, None, f"is too large ({error.size})")
        except UnicodeDecodeError:
            return AgentFile(path, None, "is not UTF-8 text")
        except OSError as error:
            return AgentFile(path, None, f"cannot be read ({_reason(error)})")


def project_root(path: str, cwd: str) -> str:
    """The root to index for a file checked alone (the command line): the nearest folder above it
    holding `.relavium/`, else the current folder when the file is inside it, else its own
    folder. A `$ref` never leaves it."""
    project = _nearest_project(path, None)
    if project is not None:
        return project
    here = os.path.abspath(cwd)
    inside = os.path.commonpath([here, os.path.abspath(path)]) == here
    return here if inside else os.path.dirname(os.path.abspath(path))


def find_project(path: str) -> str | None:
    """The project a file is in (the language server keeps one index per project): the nearest
    folder above it holding `.relavium/`, or None."""
    return _nearest_project(path, None)


def _nearest_project(path: str, within: str | None) -> str | None:
    """The nearest folder above `path` holding `.relavium/`, not above `within` when given."""
    folder = os.path.dirname(os.path.abspath(path))
    while within is None or os.path.commonpath([folder, within]) == within:
        if os.path.isdir(os.path.join(folder, PROJECT_FOLDER)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


def _reason(error: OSError) -> str:
    return (error.strerror or type(error).__name__).lower()


def _project_agent_paths(folder: str) -> tuple[list[str], list[str]]:
    """A project's agent files: every file under `.relavium/` that is an agent by `file_kind` —
    every YAML file in `.relavium/agents/` (the engine's `relavium list` parses those,
    apps/cli/src/workflows/catalog.ts) and every `*.agent.yaml|yml` elsewhere but `workflows/`
    (config-spec.md: a workspace "loads every … `*.agent.yaml` under `<projectRoot>/.relavium/`")
    — in path order; linked folders are not entered. And the folders that could not be listed."""
    found: list[str] = []
    unlisted: list[str] = []
    for current, dirs, names in os.walk(folder,
                                        onerror=lambda error: unlisted.append(error.filename)):
        dirs.sort()
        found.extend(os.path.join(current, name) for name in sorted(names)
                     if file_kind(PurePath(current, name)) is FileKind.AGENT)
    return found, unlisted


def _ref_values(workflow: Workflow) -> Iterator[tuple[AgentDecl, YScalar | None]]:
    for decl in workflow.agents:
        if decl.is_ref:
            entry = decl.mapping.get("$ref")
            value = entry.value if entry is not None else None
            usable = isinstance(value, YScalar) and isinstance(value.value, str) and value.value
            yield decl, value if usable and isinstance(value, YScalar) else None


def _agent_file(path: str, text: str) -> AgentFile:
    """An agent file's entry from its text: validated as the engine's `parseAgent` does."""
    source = SourceText(text)
    document = read_yaml(source)
    if document.root is None and document.problems:
        return AgentFile(path, None, "is not valid YAML")
    problems, _ = validate_agent_file(source, document.root)
    errors = sum(1 for problem in [*document.problems, *problems]
                 if problem.severity is Severity.ERROR)
    root = document.root
    id_entry = root.get("id") if isinstance(root, YMapping) else None
    agent = None
    if isinstance(root, YMapping) and id_entry is not None and \
            isinstance(id_entry.value, YScalar) and isinstance(id_entry.value.value, str):
        agent = AgentEntry(id_entry.value.value, path, source, root, id_entry.value.span,
                           errors == 0)
    if errors:
        if isinstance(root, YMapping) and root.get("workflow") is not None:
            return AgentFile(path, agent, "is a workflow, not an agent")
        noun = "error" if errors == 1 else "errors"
        return AgentFile(path, agent, f"is not a valid agent ({errors} {noun}: check the file)")
    if agent is None:
        return AgentFile(path, None, "defines no agent id")
    return AgentFile(path, agent, None)
