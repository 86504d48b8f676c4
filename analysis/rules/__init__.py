"""The rule interface and registry: one module per rule id, discovered automatically.

Contract for a rule module `analysis/rules/<rule_id with - as _>.py`:
- `RULE_ID: str` — the stable id (kebab-case), also the anchor `docs/rules.md#<rule-id>`;
- `SEVERITY: Severity` — the default severity (callers may remap per diagnostic by rule id);
- `SUMMARY: str` — one line for hover and docs;
- `check(ctx: RuleContext) -> Iterable[Diagnostic]` — yields the rule's diagnostics. Build them
  with `ctx.diagnostic(RULE_ID, SEVERITY, start, end, message, ...)` (document offsets).
Adding the file is all a new rule needs: `RULES` lists every module found in this package.
Rules run only when the YAML composed; `analysis.analyze` catches a rule's exception, so one buggy
rule cannot take the others down (it reports `internal-error` instead of crashing the caller).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from analysis.diagnostics import Diagnostic, Related, Severity
from analysis.graph import Graph
from analysis.model import Workflow
from analysis.schema import SchemaMemo, validate
from analysis.source import SourceText
from analysis.yaml_tree import YamlDocument

if TYPE_CHECKING:
    from analysis.rules._expression_sites import ExpressionSite

# Where every rule has a section; diagnostics link `DOCS_URL#<rule-id>` (LSP codeDescription,
# SARIF helpUri, hover).
DOCS_URL = "https://github.com/HodeTech/relavium-lsp/blob/main/docs/rules.md"


@dataclass
class RuleContext:
    """Everything a rule may read. Offsets are document offsets (code points)."""

    source: SourceText
    document: YamlDocument
    workflow: Workflow
    graph: Graph
    # The previous version's schema walk (`AnalysisResult.schema_memo`): what it found in the
    # lists and items whose text this version has unchanged is taken over, not checked again.
    earlier_schema: SchemaMemo | None = None
    # This version's, once `schema_problems` has been asked for.
    schema_memo: SchemaMemo | None = field(default=None, init=False)

    def diagnostic(
        self,
        rule: str,
        severity: Severity,
        start: int,
        end: int,
        message: str,
        data: dict[str, Any] | None = None,
        related: Iterable[tuple[int, int, str]] = (),
    ) -> Diagnostic:
        return Diagnostic(
            self.source.range(start, end), severity, rule, message, data,
            tuple(Related(self.source.range(s, e), text) for s, e, text in related),
        )

    @cached_property
    def schema_problems(self) -> list[Diagnostic]:
        """The schema walk's findings (shared by unknown-key, missing-field, invalid-value, …)."""
        problems, self.schema_memo = validate(self, self.earlier_schema)
        return problems

    @cached_property
    def expression_sites(self) -> list[ExpressionSite]:
        """Every evaluated expression within the size limit with its facts: analysed once per
        analysis and shared by every expression rule (each used to re-derive them)."""
        # Imported here: that module builds on this one.
        from analysis.rules._expression_sites import collect_sites

        return collect_sites(self)


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    summary: str
    check: Callable[[RuleContext], Iterable[Diagnostic]]

    @property
    def docs_url(self) -> str:
        return docs_url(self.id)


def docs_url(rule_id: str) -> str:
    return f"{DOCS_URL}#{rule_id}"


def _discover() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        rule = Rule(module.RULE_ID, module.SEVERITY, module.SUMMARY, module.check)
        if rule.id.replace("-", "_") != info.name:
            raise ImportError(f"rule module {info.name} declares RULE_ID {rule.id!r}")
        rules[rule.id] = rule
    return rules


RULES: dict[str, Rule] = _discover()
