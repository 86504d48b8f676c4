"""human-gate-without-timeout: a `human_gate` with no `timeout_ms`, in a workflow with no
`timeout_ms` either, waits for its decision forever.

The engine arms a gate's timer only when `timeout_ms` is set; without it the gate is parked with
no deadline and no `timeout_action` applies (packages/core/src/engine/node-handlers/human-gate.ts
`runHumanGate` and engine.ts `#settlePaused`, 3ca4676). The run-level `timeout_ms` timer keeps
running while the run is paused and fails it: it is disarmed only when the run settles, and since
CR-22 bounds the run's total wall-clock across resumes (engine.ts `#armRunTimeout`, 717bc97; the
plan has no default, dag.ts), so a workflow `timeout_ms` bounds the wait and the gate is not
reported. The fix adds a day's timeout to the gate, after which the engine's default
`timeout_action`, `reject`, applies."""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.edits import append_entry, fix, newline_of

RULE_ID = "human-gate-without-timeout"
SEVERITY = Severity.WARNING
SUMMARY = ("A human_gate with no timeout_ms (nor a workflow timeout_ms): an unanswered gate keeps "
           "its run waiting forever.")

DAY_MS = 86_400_000


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    text = ctx.source.text
    body = ctx.workflow.body
    if body is not None and body.get("timeout_ms") is not None:
        return
    for node in ctx.nodes_of("human_gate"):
        if node.entry("timeout_ms") is not None or node.id_ref is None:
            continue
        added = append_entry(text, node.mapping, f"timeout_ms: {DAY_MS}", newline_of(text))
        yield ctx.diagnostic(
            RULE_ID, SEVERITY, *node.id_ref.span,
            f"human_gate '{node.id}' has no timeout_ms and the workflow none either: the engine "
            "sets no deadline, so an unanswered gate keeps the run waiting forever; add "
            "timeout_ms (timeout_action then decides, reject unless set)",
            fixes=() if added is None else (
                fix(ctx.source, "Add a timeout (24 hours, then reject)", [added], safe=False),),
        )
