"""An agent file (`*.agent.yaml`, or YAML under `.relavium/agents/`) validated as the engine's
`parseAgent` does (packages/core/src/agent-parser.ts, HodeTech/Relavium 839f2bd): the document,
decoded by the same hardened YAML profile as a workflow (`analysis.document.yaml_profile`), is one
agent checked against the same strict `AgentSchema` an inline `agents:` entry is
(packages/shared/src/agent.ts) — so `AGENT_FILE` is `analysis.schema.agent.AGENT` at the top level
of the file, with nothing added: no `schema_version`, no `$ref`, no wrapper key.

Nothing else of a workflow's checks applies: `parseAgent` resolves no template, and the engine
sends `system_prompt` verbatim (packages/core/src/engine/authored-system-prompt.ts, 3c87fbb,
ADR-0081 §1), so `{{ … }}` there is text.

Contract: `validate_agent_file(source, root, earlier)` returns the file's `unknown-key`,
`missing-field` and `invalid-value` diagnostics and the walk's memo, like
`analysis.schema.workflow.validate`.
"""

from __future__ import annotations

from dataclasses import replace

from analysis.diagnostics import Diagnostic
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YNode
from analysis.schema.agent import AGENT
from analysis.schema.walk import SchemaMemo, validate_file

# Unlabelled: the file is the agent, so a message names the field alone (`temperature must …`).
AGENT_FILE = replace(
    AGENT, label=None,
    refused={"schema_version": "an agent file has no 'schema_version' (a workflow file's key; "
                               "parseAgent refuses it); remove it"},
    doc="A Relavium agent file (*.agent.yaml, or YAML under .relavium/agents/): one agent, the "
        "fields of an inline agent.")


def validate_agent_file(source: SourceText, root: YNode | None,
                        earlier: SchemaMemo | None = None
                        ) -> tuple[list[Diagnostic], SchemaMemo | None]:
    return validate_file(AGENT_FILE, source, root, earlier,
                         "the file is empty: an agent needs id, model, provider and system_prompt",
                         "id")
