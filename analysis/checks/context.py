"""What a rule may read: the document, the model, the graph, and the facts several rules share,
each derived once per analysis."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar, cast

from analysis.checks.expression_sites import ExpressionSite, collect_sites, evaluated_fields
from analysis.checks.template_sites import Site
from analysis.checks.template_sites import collect_sites as collect_template_sites
from analysis.diagnostics import Diagnostic, Fix, Related, Severity
from analysis.document.gating import BranchGate, GatingMemo, gates_taken_over
from analysis.document.graph import Graph
from analysis.document.model import Branch, Edge, ExpressionField, NodeDef, Workflow
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YamlDocument
from analysis.project.workspace import Resolution, WorkspaceIndex
from analysis.schema.walk import SchemaMemo
from analysis.schema.workflow import validate
from analysis.types.dataflow import TypesMemo

T = TypeVar("T")

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
    # The workspace's agents and the document's path: the cross-file rules judge only with both.
    workspace: WorkspaceIndex | None = None
    path: str | None = None
    # The previous version's expression types (`AnalysisResult.types_memo`): those whose inputs
    # are unchanged are taken over by this version's Dataflow (`analysis.types.dataflow`).
    earlier_types: TypesMemo | None = None
    # The previous version's branch gates (`AnalysisResult.gating_memo`), taken over by
    # `branch_gates` while the graph's shape is unchanged.
    earlier_gating: GatingMemo | None = None
    # This version's, once `branch_gates` has been asked for.
    gating_memo: GatingMemo | None = field(default=None, init=False)
    # This version's, once `schema_problems` has been asked for.
    schema_memo: SchemaMemo | None = field(default=None, init=False)
    # This version's, once a typed check has built the Dataflow (`typed_reads.dataflow`).
    types_memo: TypesMemo | None = field(default=None, init=False)
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
        fixes: tuple[Fix, ...] = (),
    ) -> Diagnostic:
        return Diagnostic(
            self.source.range(start, end), severity, rule, message, data,
            tuple(Related(self.source.range(s, e), text) for s, e, text in related), fixes,
        )

    @cached_property
    def schema_problems(self) -> list[Diagnostic]:
        """The schema walk's findings (shared by unknown-key, missing-field, invalid-value, …)."""
        problems, self.schema_memo = validate(self.source, self.document.root,
                                              self.earlier_schema)
        return problems

    @cached_property
    def branch_gates(self) -> list[BranchGate]:
        """`analysis.document.gating.branch_gates` of the graph, taken over from the previous
        version when its shape is unchanged (`gates_taken_over`)."""
        gates, self.gating_memo = gates_taken_over(self.graph, self.earlier_gating)
        return gates

    @cached_property
    def resolution(self) -> Resolution | None:
        """What the workflow's `agent_ref`s resolve to across files, or None without a workspace
        index or a path (then every rule judges the file alone, as it always has)."""
        if self.workspace is None or self.path is None:
            return None
        return self.workspace.resolve(self.path, self.workflow)

    @cached_property
    def evaluated_fields(self) -> list[tuple[NodeDef, ExpressionField]]:
        """Every expression field the engine evaluates, with its node."""
        return evaluated_fields(self.workflow)

    @cached_property
    def expression_sites(self) -> list[ExpressionSite]:
        """Every evaluated expression within the size limit with its facts: analysed once per
        analysis and shared by every expression rule (each used to re-derive them)."""
        return collect_sites(self.evaluated_fields)

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
