"""What a dry run says about its samples: the synthesized ancestor output a failed expression read
(and how to pin a realistic one), and the samples' outputs a run no longer matches."""

from __future__ import annotations

from analysis.document.expressions import analyze_expression
from analysis.document.graph import Graph
from analysis.document.model import NodeDef
from analysis.dryrun.results import NodeRun, WorkflowRun
from analysis.dryrun.samples import PINNED_TYPES, Samples
from analysis.dryrun.values import UNDEFINED, same_json, value_text


def synthesized_cause(
    graph: Graph, results: list[NodeRun], node: NodeDef, node_id: str
) -> str | None:
    """For an expression that failed: the synthesized ancestor outputs it read (all of them when
    it names none), and how to pin one; None when it read none."""
    if node.expression is None:
        return None
    read = {each.node_id for each in analyze_expression(node.expression.value).output_reads}
    if node.type == "merge":
        read.update(graph.fan_in_branches(node_id))
    ancestors = graph.ancestors(node_id)
    causes = [
        entry for entry in results
        if entry.status == "synthesized" and entry.id in ancestors
        and (not read or entry.id in read)
    ]
    if not causes:
        return None
    named = ", ".join(
        f"`{entry.id}` ({entry.type}: {value_text(entry.value, 40)})" for entry in causes
    )
    return (
        f"`{node_id}` failed reading a synthesized output: {named}; pin a realistic one "
        f'under "outputs": {{"{causes[0].id}": …}} in the samples file (Create Sample Scope '
        "writes a starter next to the workflow)"
    )


def stale_outputs(run: WorkflowRun, samples: Samples) -> str | None:
    """The note for samples `outputs` of computed nodes that no longer match what the run
    computed (in run order): a dry run recomputes every node but agents and human gates, so such
    an entry is never used, and an edit there must not pass silently. Entries that match (as the
    starter sidecar writes them) say nothing."""
    stale = []
    for entry in run.nodes:
        if entry.type in PINNED_TYPES or entry.id not in samples.outputs:
            continue
        if entry.value is UNDEFINED:
            stale.append(f"`{entry.id}` ({entry.status}, no value)")
        elif not same_json(entry.value, samples.outputs[entry.id]):
            stale.append(f"`{entry.id}` (now {value_text(entry.value, 40)})")
    if not stale:
        return None
    return ("the samples' outputs for " + ", ".join(stale) + " differ from this dry run and are "
            "not used: a dry run recomputes every node but agent and human_gate ones; update "
            "or delete those entries (`nodes.<id>.outputs` sets what one node sees)")
