"""unresolved-agent-file: a `{ $ref: path }` agent entry whose file cannot give the agent.

Judged only with a workspace index (`RuleContext.resolution`, `analysis.project.workspace`): the
path, relative to the workflow's folder, names a file that does not exist, cannot be read, is not
a regular file, is too large, leaves the project (also through a link), is a workflow, or does not
validate as one agent (`AgentSchema`, as the host validates a `$ref` agent before it hands it to
`buildRunPlan`, packages/core/src/dag.ts `BuildRunPlanOptions.agents`). An error: no agent comes
from it, so every node that names its agent fails. The invalid file's own diagnostics stay in that
file; this one names the file and why."""

import os
from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity

RULE_ID = "unresolved-agent-file"
SEVERITY = Severity.ERROR
SUMMARY = "A $ref agent entry whose file is missing, unreadable, outside the project or invalid."

# What to do, by the start of the reason the index gave.
ADVICE = (
    ("does not exist", "fix the path (relative to this workflow's folder) or create the file"),
    ("is outside", "move the agent file into the project"),
    ("is a symbolic link", "put the agent file itself inside the project"),
    ("is not a valid", "fix the errors shown in that file"),
    ("is a workflow", "name an agent file"),
)


# A path longer than this is cut in a message (the whole one is in `data`).
SHOWN_PATH_CHARS = 120


def shown_path(ctx: RuleContext, path: str) -> str:
    """A file as the message names it: relative to the workflow's folder, cut when long."""
    shown = os.path.relpath(path, os.path.dirname(os.path.abspath(ctx.path or ".")))
    return shown if len(shown) <= SHOWN_PATH_CHARS else shown[:SHOWN_PATH_CHARS - 1] + "…"


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    resolution = ctx.resolution
    if resolution is None:
        return
    for ref in resolution.refs:
        file = ref.file
        if file.problem is None:
            continue
        advice = next((text for start, text in ADVICE if file.problem.startswith(start)),
                      "fix the path or the file")
        yield ctx.diagnostic(
            RULE_ID, SEVERITY, *ref.value.span,
            f"agents[{ref.decl.index}]: the agent file '{shown_path(ctx, file.path)}' "
            f"{file.problem}, so no agent comes from this $ref: {advice}",
            {"path": file.path, "reason": file.problem},
        )
