"""The rule registry: every rule, listed by family (the sections of docs/rules.md).

Contract for a rule module `analysis/checks/rules/<family>/<rule_id with - as _>.py`:
- `RULE_ID: str` — the stable id (kebab-case), also the anchor `docs/rules.md#<rule-id>`;
- `SEVERITY: Severity` — the default severity (callers may remap per diagnostic by rule id);
- `SUMMARY: str` — one line for hover and docs;
- `check(ctx: RuleContext) -> Iterable[Diagnostic]` — yields the rule's diagnostics. Build them
  with `ctx.diagnostic(RULE_ID, SEVERITY, start, end, message, ...)` (document offsets).
A new rule is its module and one line in `FAMILIES`. Rules run only when the YAML composed;
`analysis.checks.analyze.analyze` catches a rule's exception, so one buggy rule cannot take the
others down (it reports `internal-error` instead of crashing the caller).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity

# Where every rule has a section; diagnostics link `DOCS_URL#<rule-id>` (LSP codeDescription,
# SARIF helpUri, hover).
DOCS_URL = "https://github.com/HodeTech/relavium-lsp/blob/main/docs/rules.md"

# Each family's rule modules, in the order of their sections in docs/rules.md.
FAMILIES: dict[str, tuple[str, ...]] = {
    "yaml": (
        "yaml_syntax",
        "duplicate_key",
    ),
    "schema": (
        "unknown_key",
        "missing_field",
        "invalid_value",
        "duplicate_id",
    ),
    "expressions": (
        "reserved_expression_type",
        "unknown_expression_type",
        "js_syntax",
        "unordered_output_read",
        "unknown_output_reference",
        "forbidden_global",
        "secret_read",
        "branches_outside_merge",
        "template_in_expression",
        "expression_too_large",
        "condition_when_type",
        "missing_merge_fn",
        "unused_merge_fn",
    ),
    "graph": (
        "unknown_node",
        "unknown_agent",
        "invalid_handle",
        "invalid_parallel_edge",
        "mismatched_branch_target",
        "cycle",
        "unreachable_node",
    ),
    "templates": (
        "unknown_template_reference",
        "context_output_reference",
        "secret_in_template",
        "invalid_template",
    ),
}


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    summary: str
    check: Callable[[RuleContext], Iterable[Diagnostic]]
    family: str

    @property
    def docs_url(self) -> str:
        return docs_url(self.id)


def docs_url(rule_id: str) -> str:
    return f"{DOCS_URL}#{rule_id}"


def _load() -> dict[str, Rule]:
    rules: list[Rule] = []
    for family, names in FAMILIES.items():
        for name in names:
            module = importlib.import_module(f"analysis.checks.rules.{family}.{name}")
            rule = Rule(module.RULE_ID, module.SEVERITY, module.SUMMARY, module.check, family)
            if rule.id.replace("-", "_") != name:
                raise ImportError(f"rule module {name} declares RULE_ID {rule.id!r}")
            rules.append(rule)
    # By id, as every listing of the rules (settings, SARIF, docs) has always been ordered.
    return {rule.id: rule for rule in sorted(rules, key=lambda rule: rule.id)}


RULES: dict[str, Rule] = _load()
