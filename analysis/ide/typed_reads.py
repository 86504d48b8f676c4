"""The types editor features read: the dataflow's (`analysis.types.dataflow`), plus what a
merge_fn's `branches[i]` is, branch by branch.

Contract: `TypedReads(workflow, graph, flow).read_type(reader, root, path)` is the dataflow's
`read_type`, except `branches[i]…` in a merge whose every fan-in branch surely completes before
it: then branch `i`'s own output (`fan_in_branches` order, the engine's `branches` order:
ADR-0091 as amended 2026-09-03, dag.ts computeMergeBranchOrder). The engine's `branches` keeps
only the branches that completed (fan-in.ts branchOutputs, see
`analysis.dryrun.scope.completed_branches`): where a condition gates one of them, an index may
name another branch, and the dataflow's element type (any branch's output) stands.
`branches(merge_id)` → the fan-in branch ids and their outputs' types, and whether they are
exact by index. `denied(root, path)`: a node's read of a secret input or a secret-derived
context key, which fails (no type to show). `input_values()` → for
each input whose type is an enum, its values as a completion detail's tail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from analysis.document.gating import branch_gates
from analysis.document.graph import Graph
from analysis.document.model import FileAgent, Workflow
from analysis.ide.read_path import PathKey
from analysis.schema.value_types import Literals, UndefinedType, ValueType, union_of
from analysis.types.algebra import options
from analysis.types.dataflow import UNKNOWN, Dataflow, TypedValue, dataflow_of
from analysis.types.display import format_type

_ENUM_WIDTH = 48


@dataclass(frozen=True)
class Branches:
    members: tuple[str, ...]
    outputs: tuple[TypedValue | None, ...]
    by_index: bool  # every branch completes before the merge: `branches[i]` is member i's


class TypedReads:
    def __init__(self, workflow: Workflow, graph: Graph | None, flow: Dataflow | None) -> None:
        self.workflow = workflow
        self.graph = graph
        self.flow = flow

    def branches(self, merge_id: str) -> Branches | None:
        node = self.workflow.node(merge_id)
        if self.graph is None or self.flow is None or node is None or node.type != "merge":
            return None
        members = tuple(self.graph.fan_in_branches(merge_id))
        gated = {node_id for gate in branch_gates(self.graph) for node_id in gate.gated}
        return Branches(members, tuple(self.flow.output_of(member) for member in members),
                        gated.isdisjoint(members))

    def input_values(self) -> dict[str, str]:
        """` · "free" | "pro"` for each input whose `validation.enum` lists its values (its
        declared type names the rest better than a type would: `file_path`, `integer`)."""
        if self.flow is None:
            return {}
        found = {}
        for name, value_type in self.flow.inputs.properties:
            present: list[ValueType] = [option for option in options(value_type)
                                        if not isinstance(option, UndefinedType)]
            if present and all(isinstance(option, Literals) for option in present):
                found[name] = f" · {format_type(union_of(present), width=_ENUM_WIDTH)}"
        return found

    def denied(self, root: str, path: Sequence[PathKey]) -> bool:
        """Whether a node's read fails before it has a value: a secret input or a
        secret-derived context key (an expression's raises `secret_context`; a node's template
        may not print one)."""
        if self.graph is None or not path:
            return False
        secret = {"inputs": self.graph.secret_inputs, "ctx": self.graph.secret_context}
        return path[0] in secret.get(root, ())

    def read_type(self, reader: str, root: str, path: Sequence[PathKey]) -> TypedValue:
        if self.flow is None:
            return UNKNOWN
        if root == "branches" and path and isinstance(path[0], int):
            branches = self.branches(reader)
            if branches is not None and branches.by_index and path[0] < len(branches.members):
                member = branches.members[path[0]]
                found = self.flow.read_type(reader, "run", ("outputs", member, *path[1:]))
                return TypedValue(found.type, f"branch {path[0]}, {found.origin}")
        return self.flow.read_type(reader, root, path)


def typed_reads(workflow: Workflow, graph: Graph | None,
                file_agent: FileAgent | None = None) -> TypedReads:
    """The one place editor features get their types from: a dataflow of the analysis the
    request is served from (it derives only the outputs a read reaches; with `file_agent`,
    `AnalysisResult.file_agent`, an agent node's agent may be in an agent file), unknown without
    a graph."""
    return TypedReads(workflow, graph,
                      dataflow_of(workflow, graph, file_agent) if graph else None)
