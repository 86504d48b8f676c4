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
from typing import TYPE_CHECKING, Any, TypeVar, cast

from analysis.diagnostics import Diagnostic, Related, Severity
from analysis.graph import Graph
from analysis.model import Branch, Edge, NodeDef, Workflow
from analysis.rules._templates import Site
from analysis.rules._templates import collect_sites as collect_template_sites
from analysis.schema import SchemaMemo, validate
from analysis.source import SourceText
from analysis.yaml_tree import YamlDocument

if TYPE_CHECKING:
    from analysis.rules._expression_sites import ExpressionSite

T = TypeVar("T")

# Where every rule has a section; diagnostics link `DOCS_URL#<rule-id>` (LSP codeDescription,
# SARIF helpUri, hover).
DOCS_URL = "https://github.com/HodeTech/relavium-lsp/blob/main/docs/rules.md"


@dataclass
class RuleContext:
    """Everything a rule may read. Offsets are document offsets (code points).

    Besides the model, it holds facts several rules need, each derived once per analysis on
    first use: twenty rules each walking every node, edge or expression to re-derive them cost
    more than their checks (issue 12).
    """

    source: SourceText
    document: YamlDocument
    workflow: Workflow
    graph: Graph
    # The previous version's schema walk (`AnalysisResult.schema_memo`): what it found in the
    # lists and items whose text this version has unchanged is taken over, not checked again.
    earlier_schema: SchemaMemo | None = None
    # This version's, once `schema_problems` has been asked for.
    schema_memo: SchemaMemo | None = field(default=None, init=False)
    _shared: dict[Callable[[RuleContext], Any], Any] = field(
        default_factory=dict, init=False, repr=False)

    def shared(self, derive: Callable[[RuleContext], T]) -> T:
        """`derive(self)`, derived once per analysis for every rule that asks: for a fact a few
        rules share that is defined beside one of them (reserved-expression-type's
        `expression_types`)."""
        if derive not in self._shared:
            self._shared[derive] = derive(self)
        return cast(T, self._shared[derive])

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

    @cached_property
    def template_sites(self) -> list[Site]:
        """Every `{{ … }}` reference in every template field, in authored order (shared by the
        template rules)."""
        return collect_template_sites(self.workflow)

    @cached_property
    def nodes_by_type(self) -> dict[str | None, list[NodeDef]]:
        """The nodes of each `type`, in authored order: most rules look at one or two types."""
        result: dict[str | None, list[NodeDef]] = {}
        for node in self.workflow.nodes:
            found = result.get(node.type)
            if found is None:
                result[node.type] = [node]
            else:
                found.append(node)
        return result

    def nodes_of(self, node_type: str) -> list[NodeDef]:
        """The nodes whose `type` is `node_type`, in authored order."""
        return self.nodes_by_type.get(node_type, [])

    @cached_property
    def edges_by_source_type(self) -> dict[str | None, list[tuple[Edge, NodeDef]]]:
        """Each edge whose source (`from` before any `:`) is a node, with that node (the first
        with the id), grouped by the node's type, in authored order."""
        nodes = self.workflow.nodes_by_id
        result: dict[str | None, list[tuple[Edge, NodeDef]]] = {}
        for edge in self.workflow.edges:
            node = nodes.get(edge.source or "")
            if node is None:
                continue
            found = result.get(node.type)
            if found is None:
                result[node.type] = [(edge, node)]
            else:
                found.append((edge, node))
        return result

    def edges_from(self, node_type: str) -> list[tuple[Edge, NodeDef]]:
        """The edges out of nodes of type `node_type`, each with its source node."""
        return self.edges_by_source_type.get(node_type, [])

    @cached_property
    def condition_edges(self) -> list[tuple[Edge, NodeDef, Branch | None]]:
        """Each edge out of a condition node, with the node and the branch its handle names (as
        the engine routes: the first that answers; None without a handle or a match)."""
        return [(edge, node, None if edge.handle is None else node.branch_for(edge.handle))
                for edge, node in self.edges_from("condition")]


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
