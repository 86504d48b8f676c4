"""The rule registry: every rule, listed by family (the sections of docs/rules.md), with who
reports its findings.

Most rules are a check of their own, a module `analysis/checks/rules/<family>/<rule_id with - as
_>.py` holding:
- `RULE_ID: str` — the stable id (kebab-case), also the anchor `docs/rules.md#<rule-id>`;
- `SEVERITY: Severity` — the default severity (callers may remap per diagnostic by rule id);
- `SUMMARY: str` — one line for hover and docs;
- `check(ctx: RuleContext) -> Iterable[Diagnostic]` — yields the rule's diagnostics. Build them
  with `ctx.diagnostic(RULE_ID, SEVERITY, start, end, message, ...)` (document offsets).
A new rule is its module and one line in `CHECKS`. Checks run only when the YAML composed.

The others are found by a stage of the analysis while it does its own work — the YAML reader
(`analysis.document.yaml_read`) and the schema walk (`analysis.schema.walk`), which own their ids —
and are declared in `STAGE_RULES` below, with no module of their own.

`analysis.checks.analyze.analyze` runs every emitter (`EMITTERS`) and catches one's exception, so
one buggy check cannot take the others down (it reports `internal-error` instead of crashing the
caller).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YNode
from analysis.document.yaml_profile import DUPLICATE_KEY, INVALID_VALUE, YAML_SYNTAX
from analysis.schema.output_schema import SCHEMA_TOO_LARGE, UNSUPPORTED_KEYWORD
from analysis.schema.walk import MISSING_FIELD, UNKNOWN_KEY

# Where every rule has a section; diagnostics link `DOCS_URL#<rule-id>` (LSP codeDescription,
# SARIF helpUri, hover).
DOCS_URL = "https://github.com/HodeTech/relavium-lsp/blob/main/docs/rules.md"


@dataclass(frozen=True)
class Emitter:
    """What reports findings: a rule's own check, or a stage of the analysis (the YAML reader,
    the schema walk)."""

    name: str  # as an internal-error names it: "rule cycle", "the schema walk"
    findings: Callable[[RuleContext], Iterable[Diagnostic]]


AgentFileCheck = Callable[[SourceText, YNode | None], Iterable[Diagnostic]]

YAML_READER = Emitter("the YAML reader", lambda ctx: ctx.document.problems)
SCHEMA_WALK = Emitter("the schema walk", lambda ctx: ctx.schema_problems)


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    summary: str
    family: str
    emitted_by: tuple[Emitter, ...]

    @property
    def docs_url(self) -> str:
        return docs_url(self.id)


def docs_url(rule_id: str) -> str:
    return f"{DOCS_URL}#{rule_id}"


STAGE_RULES = (
    Rule(YAML_SYNTAX, Severity.ERROR,
         "The file is not YAML the engine accepts (syntax, aliases, size); a tag with no effect.",
         "yaml", (YAML_READER,)),
    Rule(DUPLICATE_KEY, Severity.ERROR,
         "A mapping repeats a key; the engine refuses duplicate keys.",
         "yaml", (YAML_READER,)),
    Rule(UNKNOWN_KEY, Severity.ERROR,
         "A key the workflow schema does not allow here (every mapping is strict).",
         "schema", (SCHEMA_WALK,)),
    Rule(MISSING_FIELD, Severity.ERROR,
         "A required field is missing.",
         "schema", (SCHEMA_WALK,)),
    # The reader reports a mapping key that is not a string (`[a]: x`) under this id too.
    Rule(INVALID_VALUE, Severity.ERROR,
         "A value has the wrong type, is not one of the allowed values, or is malformed.",
         "schema", (YAML_READER, SCHEMA_WALK)),
    Rule(UNSUPPORTED_KEYWORD, Severity.ERROR,
         "An output_schema uses a JSON Schema keyword outside the engine's strict subset.",
         "schema", (SCHEMA_WALK,)),
    Rule(SCHEMA_TOO_LARGE, Severity.ERROR,
         "An output_schema passes a bound of the subset (depth, nodes, enum, properties, bytes).",
         "schema", (SCHEMA_WALK,)),
)

# Each family's check modules, in the order of their sections in docs/rules.md.
CHECKS: dict[str, tuple[str, ...]] = {
    "schema": (
        "duplicate_id",
    ),
    "expressions": (
        "reserved_expression_type",
        "unknown_expression_type",
        "js_syntax",
        "unordered_output_read",
        "unknown_output_reference",
        "condition_output_read",
        "forbidden_global",
        "secret_read",
        "branches_outside_merge",
        "template_in_expression",
        "expression_too_large",
        "condition_when_type",
        "missing_merge_fn",
        "unused_merge_fn",
        "unknown_output_property",
        "read_of_absent_value",
        "impossible_branch_value",
    ),
    "graph": (
        "unknown_node",
        "unknown_agent",
        "invalid_handle",
        "invalid_parallel_edge",
        "mismatched_branch_target",
        "cycle",
        "unreachable_node",
        "ungranted_tool",
        "admission_limit",
        "unresolved_agent_file",
        "ambiguous_agent",
        "leaked_branch",
    ),
    "templates": (
        "unknown_template_reference",
        "context_output_reference",
        "secret_in_template",
        "invalid_template",
        "template_filter_type",
    ),
    "agents": (
        "deprecated_model",
        "withheld_reasoning_effort",
    ),
    "nodes": (
        "human_gate_without_timeout",
    ),
}


def _checked() -> list[Rule]:
    rules: list[Rule] = []
    for family, names in CHECKS.items():
        for name in names:
            module = importlib.import_module(f"analysis.checks.rules.{family}.{name}")
            if module.RULE_ID.replace("-", "_") != name:
                raise ImportError(f"rule module {name} declares RULE_ID {module.RULE_ID!r}")
            rules.append(Rule(module.RULE_ID, module.SEVERITY, module.SUMMARY, family,
                              (Emitter(f"rule {module.RULE_ID}", module.check),)))
    return rules


# The agents family reads one agent's fields, so it also checks an agent file (its top-level
# mapping): `check_agent_file(source, root)` in each of its modules.
# (the rule id, its check).
AGENT_FILE_CHECKS: tuple[tuple[str, AgentFileCheck], ...] = tuple(
    (name.replace("_", "-"),
     importlib.import_module(f"analysis.checks.rules.agents.{name}").check_agent_file)
    for name in CHECKS["agents"]
)


# By id, as every listing of the rules (settings, SARIF, docs) has always been ordered.
RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in sorted((*STAGE_RULES, *_checked()), key=lambda rule: rule.id)
}

# Each once: the reader, the walk, then the checks in the order of RULES. `analyze` sorts what
# they report by position and rule id, so this order only keeps equal findings of one rule in
# the order they were made (the reader's invalid-value before the walk's).
EMITTERS: tuple[Emitter, ...] = tuple(dict.fromkeys(
    emitter for rule in (*STAGE_RULES, *RULES.values()) for emitter in rule.emitted_by
))
