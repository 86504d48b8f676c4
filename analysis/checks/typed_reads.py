"""Shared by the typed checks (#23): the analysis's Dataflow, each literal member read after
`run.outputs[<id>]` followed through the producer's output type (`RuleContext.shared`), and the
output a template's `{{ run.outputs["id"]… }}` reads.

A keystroke changes a site or two: each rule's verdict at a site (`kept_verdict`) is the
previous version's when the whole of what it is derived from is, and only the findings are made
again, at this version's site (so their ranges are always this version's)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar, cast

from analysis.checks.context import RuleContext
from analysis.checks.expression_sites import ExpressionSite, output_access
from analysis.checks.template_sites import Site
from analysis.document.expressions import MemberRead, OutputRead
from analysis.document.model import VERBATIM_TEMPLATE_FIELDS, NodeDef
from analysis.schema.value_types import (
    AnyValue,
    NoValue,
    NullType,
    ObjectType,
    UndefinedType,
    ValueType,
)
from analysis.types.algebra import options
from analysis.types.dataflow import Dataflow, TypedValue, dataflow_of
from analysis.types.infer import member_type
from analysis.types.prototypes import lacks_key
from analysis.types.template_types import ReferencePath, reference_path

ABSENT = (NullType, UndefinedType)
T = TypeVar("T")


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


# One site's steps without the site: (read, member index, base, origin) each.
SiteSteps = list[tuple[OutputRead, int, ValueType, str]]
# Whether a rule reports a step: a function of the step's values alone (never of the site), so
# that its verdict is the previous version's wherever the steps are.
StepJudge = Callable[[OutputRead, int, ValueType, str], bool]


@dataclass(slots=True)
class KeptSite:
    """One site's steps, and which of them each typed rule reports (their indexes, filled on a
    rule's first visit): values only, derived from the site's key alone, so a version whose key
    is equal takes the same object over, verdicts included."""

    steps: SiteSteps
    findings: dict[str, tuple[int, ...]]


@dataclass(slots=True)
class TypedSite:
    site: ExpressionSite
    kept: KeptSite

    def reported(self, rule: str, judge: StepJudge) -> list[TypedStep]:
        """The steps `rule` reports at this site, at this version's site (its ranges): judged
        once per key, then taken over with the steps."""
        findings = self.kept.findings
        indexes = findings.get(rule)
        steps = self.kept.steps
        if indexes is None:
            indexes = findings[rule] = tuple(
                at for at, step in enumerate(steps) if judge(*step))
        return [TypedStep(self.site, *steps[at]) for at in indexes]


def typed_sites(ctx: RuleContext) -> list[TypedSite]:
    """Every site with a member read of an ancestor's output whose type the engine holds it to,
    with its steps: each such read up to the first whose base is unknown (or already throws).
    A site's steps (and the rules' verdicts on them) are the previous version's when its reads,
    which of them are ancestors' and their outputs are equal; they are placed at the new
    version's site, so ranges are always this version's."""
    data = ctx.shared(dataflow)
    graph = ctx.graph
    sites: list[TypedSite] = []
    for site in ctx.expression_sites:
        reader = site.node.id
        reads = tuple(read for read in site.facts.output_reads if read.members)
        if reader is None or not reads:
            continue
        ancestors = graph.ancestors(reader)
        # what the site's steps are derived from: each read, whether it is an earlier node's,
        # and that node's output
        read_outputs = tuple(
            (read, data.output_of(read.node_id)
             if read.node_id != reader and read.node_id in ancestors else False)
            for read in reads)
        kept = kept_verdict(data, ("steps", reader, site.field.name), (reader, read_outputs),
                            _kept_site, read_outputs)
        if kept.steps:
            sites.append(TypedSite(site, kept))
    return sites


def kept_verdict(data: Dataflow, slot: tuple[object, ...], key: object,
                 judge: Callable[..., T], *arguments: object) -> T:
    """A rule's verdict at `slot` (a site, a node): the previous version's when `key` (with the
    slot, the whole of what the verdict is derived from) is equal, else `judge(*arguments)`;
    kept for the next version. A verdict holds values only: the rule places its findings at this
    version's site."""
    previous = data.earlier_sites.get(slot)
    verdict = cast(T, previous[1]) if previous is not None and previous[0] == key else \
        judge(*arguments)
    if data.memo is not None:
        data.memo.sites[slot] = (key, verdict)
    return verdict


def _kept_site(reads: tuple[tuple[OutputRead, TypedValue | bool | None], ...]) -> KeptSite:
    return KeptSite(_site_steps(reads), {})


def _site_steps(reads: tuple[tuple[OutputRead, TypedValue | bool | None], ...]) -> SiteSteps:
    """One site's steps from its reads, each with the output it reads (False: not an earlier
    node's, unordered-output-read's)."""
    found: SiteSteps = []
    for read, produced in reads:
        if not isinstance(produced, TypedValue) or not produced.enforced:
            continue  # a condition's (None) is condition-output-read's
        base = produced.type
        for index, member in enumerate(read.members):
            if any(isinstance(option, AnyValue | NoValue) for option in options(base)):
                break
            found.append((read, index, base, produced.origin))
            # a key no such primitive has is undefined, where member_type says unknown
            base = UndefinedType() if lacks_key(base, member.key_name) else \
                member_type(base, member.key_name)
    return found


def declared_names(base: ValueType) -> list[str]:
    """The property names the object types among `base`'s options declare."""
    names: dict[str, None] = {}
    for option in options(base):
        if isinstance(option, ObjectType):
            names.update(dict.fromkeys(name for name, _ in option.properties))
    return list(names)


def template_reads(ctx: RuleContext, kinds: frozenset[str], owners: tuple[type, ...]
                   ) -> Iterator[tuple[Site, ReferencePath]]:
    """Each reference of one of `kinds` in a field of one of `owners` that the engine
    interpolates, with the path it reads: not `system_prompt` (sent verbatim), not `save_to`
    (`{{ run.id }}` only) nor a head or path the engine does not parse (invalid-template's)."""
    for site in ctx.template_sites:
        ref = site.ref
        if ref.kind in kinds and ref.engine_reads_head and isinstance(site.owner, owners) \
                and site.field.name != "save_to" \
                and site.field.name not in VERBATIM_TEMPLATE_FIELDS:
            parsed = reference_path(ref.body)
            if parsed is not None:
                yield site, parsed


def template_output(data: Dataflow, site: Site, identifier: str) -> TypedValue | None:
    """The output a node's template reads from `identifier`, when the engine holds it to its
    type: None in a context value (no outputs exist yet), for the node itself or one not before
    it (other rules'), in a cycle (the engine runs neither: cycle's), and for an output whose
    type is not enforced."""
    owner = site.owner
    graph = data.graph
    if not isinstance(owner, NodeDef) or owner.id is None or identifier == owner.id or (
            identifier not in graph.ancestors(owner.id)) or graph.cycle is not None:
        return None
    produced = data.output_of(identifier)
    return produced if produced is not None and produced.enforced else None


def shown_reference(parsed: ReferencePath, count: int) -> str:
    """`run.outputs["classify"].topic`: the reference with its first `count` steps (no values)."""
    kind, identifier = parsed.kind, parsed.identifier
    head = output_access(identifier) if kind == "node" else f"{kind}.{identifier}"
    return head + "".join(f"[{step}]" if isinstance(step, int) else f".{step}"
                          for step in parsed.steps[:count])
