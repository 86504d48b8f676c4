"""Shared by the typed checks (#23): the analysis's Dataflow, and each literal member read after
`run.outputs[<id>]` followed through the producer's output type (`RuleContext.shared`)."""

from __future__ import annotations

from dataclasses import dataclass

from analysis.checks.context import RuleContext
from analysis.checks.expression_sites import ExpressionSite, output_access
from analysis.document.expressions import MemberRead, OutputRead
from analysis.schema.value_types import (
    AnyValue,
    NoValue,
    NullType,
    ObjectType,
    UndefinedType,
    ValueType,
)
from analysis.types.algebra import options
from analysis.types.dataflow import Dataflow, dataflow_of
from analysis.types.infer import member_type
from analysis.types.prototypes import lacks_key

ABSENT = (NullType, UndefinedType)


def dataflow(ctx: RuleContext) -> Dataflow:
    """The analysis's Dataflow, with the workspace's file agents when there is a workspace."""
    resolution = ctx.resolution
    reads = {site.node.id: [read.node_id for read in site.facts.output_reads]
             for site in ctx.expression_sites if site.node.id is not None}
    data = dataflow_of(ctx.workflow, ctx.graph,
                       resolution.file_agent if resolution is not None else None, reads,
                       ctx.earlier_types)
    ctx.types_memo = data.memo
    return data


# Compared and hashed by value, never changed (see ExpressionSite).
@dataclass(unsafe_hash=True, slots=True)
class TypedStep:
    """One member read of a value whose type is known: `base` is the type of what it reads."""

    site: ExpressionSite
    read: OutputRead
    index: int  # which of `read.members`
    base: ValueType
    origin: str  # where the producer's type comes from

    @property
    def member(self) -> MemberRead:
        return self.read.members[self.index]

    @property
    def keys(self) -> list[str]:
        """The keys read after `run.outputs[<id>]`, up to and including this member."""
        return [member.key_name for member in self.read.members[:self.index + 1]]

    @property
    def path(self) -> str:
        """`run.outputs["classify"].topic`: the read up to this member (names, no values)."""
        keys = "".join(f".{member.key_name}" for member in self.read.members[:self.index])
        return output_access(self.read.node_id) + keys


def typed_steps(ctx: RuleContext) -> list[TypedStep]:
    """Every member read of an ancestor's output whose type the engine holds it to, up to the
    first whose base is unknown (or already throws)."""
    data = ctx.shared(dataflow)
    graph = ctx.graph
    steps: list[TypedStep] = []
    for site in ctx.expression_sites:
        reader = site.node.id
        reads = [read for read in site.facts.output_reads if read.members]
        if reader is None or not reads:
            continue
        ancestors = graph.ancestors(reader)
        for read in reads:
            if read.node_id == reader or read.node_id not in ancestors:
                continue  # unordered-output-read's
            produced = data.output_of(read.node_id)
            if produced is None or not produced.enforced:
                continue  # a condition's is condition-output-read's
            base = produced.type
            for index, member in enumerate(read.members):
                if any(isinstance(option, AnyValue | NoValue) for option in options(base)):
                    break
                steps.append(TypedStep(site, read, index, base, produced.origin))
                # a key no such primitive has is undefined, where member_type says unknown
                base = UndefinedType() if lacks_key(base, member.key_name) else \
                    member_type(base, member.key_name)
    return steps


def declared_names(base: ValueType) -> list[str]:
    """The property names the object types among `base`'s options declare."""
    names: dict[str, None] = {}
    for option in options(base):
        if isinstance(option, ObjectType):
            names.update(dict.fromkeys(name for name, _ in option.properties))
    return list(names)
