"""A whole-workflow dry run with the engine's run-loop semantics (`relavium-lsp run FILE`, the
`relavium.dryRunWorkflow` command).

Contract: `run_workflow(workflow, graph, samples, evaluate, ...)` runs every node once, in the
engine's plan order (Kahn's topological order, ties broken by authored position), and answers a
`WorkflowRun` whose `to_json()` is `{"ok", "nodes": [{"id", "type", "status", "value"?, "error"?,
"reason"?, "ms"}], "notes"}` in execution order. The facts it reproduces were observed by running
the engine's own run loop (packages/core/src/engine/engine.ts and node-handlers/) on the same
workflows; each has a test in tests/analysis/dryrun/test_workflow_run.py:

- a node runs once all its dependencies settled and at least one reached it on a taken path (a
  completed non-condition dependency, or a condition that selected it); a pending node whose
  dependencies all settled without a live edge is skipped — `branch_not_taken` when a completed
  condition routed away from it, else `upstream_unreachable` — to a fixpoint after every step;
- `input` emits the inputs with each secret masked as `{"secret": true, "ref": "inputs.x"}`;
  `condition` evaluates once and selects the first branch whose `when` strictly (`===`) equals
  the result, else `default`, and stores NO output (absent from `run.outputs`); `transform`
  evaluates; `parallel` stores `null`; `merge` gathers its completed value-producing branches
  (`Graph.fan_in_branches`: a condition or parallel is a control edge, ADR-0091 as amended) in
  the plan's fan-in order and applies `concat`, `object_merge`, `first` or `merge_fn`;
  `agent` / `human_gate` resolve their templates first (an unresolvable reference fails the
  node as in the engine), then take the pinned sample (`pinned`) or a synthesized one
  (`synthesized`: an `output_schema` skeleton or a text placeholder; a gate's approval
  `{"decision": "approved"}`, a gate pinned to null `{"decision": "input_provided"}`); `output`
  captures its value-producing feeders: none → null, one verbatim, several a record keyed by
  sorted id;
- `max_parallel` (omitted: 8) caps the nodes in flight (of every type): each step claims the
  first `max_parallel` ready nodes in plan order (with 1, the run is the plan order itself);
  before the 501st node start the run fails `turn_limit` with no node failing (ADR-0086 §4);
- values cross between nodes as JSON (top-level NaN/±Infinity → null, -0 → 0);
- a node's output over 256 KiB, or one that would take the run's state over 4 MiB, fails the
  node as the engine's size bounds do (`analysis.dryrun.bounds`);
- an expression whose scope holds a value nested deeper than the sandbox admits fails as the
  sandbox fails it (`sandbox_error`, reason `scope`);
- the workflow's `context:` is resolved before any node starts, as the engine resolves it; a
  reference it surely cannot resolve (an omitted input or secret without `| default`, a key
  declared later, `read_file` given no path string) fails the run with no node run (`not-run`);
- the first failure ends the run: nodes of the same step not yet evaluated are cancelled
  (`failed` with the `cancelled` outcome), the failed nodes' dependents are skipped
  (`upstream_unreachable`), and nothing else starts (`not-run`).

Every evaluation goes through the injected `evaluate` (the capped sandbox, in the worker pool
for the server and CLI); with `workers` above 1 a step's evaluations are in flight together
(`analysis.dryrun.flights`), settled in claim order all the same. `cancelled()` is polled between
nodes and `budget_s` bounds the run.
Each expression sees its ancestors' outputs only (the engine exposes whatever has completed,
which for a non-ancestor depends on timing; the `unordered-output-read` rule reports such reads).
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from typing import Any

from analysis.document.graph import CONTROL_TYPES, Graph
from analysis.document.model import NodeDef, Workflow
from analysis.dryrun.bounds import Sizes, breach, serialized_bytes
from analysis.dryrun.failures import error_json
from analysis.dryrun.flights import EVALUATED_TYPES, Evaluate, Flights
from analysis.dryrun.hints import stale_outputs, synthesized_cause
from analysis.dryrun.merges import merged
from analysis.dryrun.plan import DISPATCH_LIMIT, NODE_DISPATCHES_PER_RUN, max_parallel, plan_order
from analysis.dryrun.results import NodeRun, WorkflowRun
from analysis.dryrun.samples import (
    GATE_INPUT_PROVIDED,
    PINNED_TYPES,
    SYNTHESIZED,
    FileAgent,
    Samples,
    pin_mismatch,
    synthesized,
)
from analysis.dryrun.scope import base_scope, completed_branches, engine_scope
from analysis.dryrun.templates import context_failure, unresolvable_template
from analysis.dryrun.values import UNDEFINED, json_value, strictly_equal, value_text
from sandbox import Scope, ScopeError
from sandbox.errors import SandboxError
from sandbox.evaluator import failed_outcome
from sandbox.scope import SharedValue

# How long a whole dry run may take before the remaining nodes are reported `not-run`: each
# evaluation is capped by the sandbox on its own; this caps the sum.
RUN_BUDGET_S = 30.0
# how much of a condition's result its reason shows
REASON_LIMIT = 120




class _Runner:
    def __init__(
        self,
        workflow: Workflow,
        graph: Graph,
        samples: Samples,
        evaluate: Evaluate,
        cancelled: Callable[[], bool],
        budget_s: float,
        file_agent: FileAgent | None = None,
        workers: int = 1,
    ) -> None:
        self.workflow = workflow
        self.file_agent = file_agent
        self.graph = graph
        self.samples = samples
        self.flights = Flights(evaluate, workers)
        # the time a node's record shows beyond the loop's own: its evaluation's, not the wait
        self.evaluation_offset = 0.0
        self.cancelled = cancelled
        self.deadline = time.monotonic() + budget_s
        self.budget_s = budget_s
        self.notes: list[str] = []
        self.base = base_scope(workflow, graph, samples, self.notes)
        self.inputs, self.secret_inputs, self.ctx, self.secret_ctx = self.base
        self.nodes = workflow.nodes_by_id
        self.status: dict[str, str] = {node_id: "pending" for node_id in graph.node_ids}
        self.stored: dict[str, Any] = {}
        # the stored outputs `run.outputs` shows (a condition's is absent), as their
        # SharedValue once a scope needed it: each is checked and serialised once per run
        self.visible: dict[str, Any] = {}
        self.shared: dict[str, SharedValue] = {}
        self.shared_inputs: dict[str, Any] | None = None
        self.selected: dict[str, str] = {}
        self.results: list[NodeRun] = []
        self.failure: str | None = None
        self.cap = max_parallel(workflow)
        self.started = 0  # the node starts so far: the engine's `#nodeDispatches`
        self.error: dict[str, Any] | None = None
        self.state_bytes = 0  # the kept outputs' serialized bytes, as the engine sums them
        self.sizes: Sizes = {}

    # --- the loop ---------------------------------------------------------------------------

    def run(self, members: set[str] | None) -> WorkflowRun:
        order = [node_id for node_id in plan_order(self.workflow, self.graph)
                 if members is None or node_id in members]
        self._track(order)
        stop_reason: str | None = None
        # the engine resolves `context:` before it claims any node, and a failure ends the run
        self.error = context_failure(
            self.workflow, self.graph, self.inputs, self.secret_inputs, self.ctx,
            self.samples.ctx,
        )
        if self.error is not None:
            stop_reason = "the run failed before any node: its context could not be resolved"
        while stop_reason is None:
            self._propagate_skips()
            if self.failure is not None:
                stop_reason = f"the run ended when `{self.failure}` failed"
                break
            if self.ready and self.started >= NODE_DISPATCHES_PER_RUN:
                # the engine refuses to claim more (engine.ts #step): the run fails, no node does
                self.error = dict(DISPATCH_LIMIT)
                stop_reason = f"the run reached its limit of {NODE_DISPATCHES_PER_RUN} node starts"
                break
            # claimed at once, up to the cap and the dispatches left (engine.ts #claimReady)
            claim = min(self.cap, len(self.ready), NODE_DISPATCHES_PER_RUN - self.started)
            ready = [heapq.heappop(self.ready)[1] for _ in range(claim)]
            if not ready:
                break
            self.started += len(ready)
            self.flights.launch_step([(node_id, self.nodes[node_id]) for node_id in ready],
                                     self.scope_for)
            for position, node_id in enumerate(ready):
                if self.cancelled():
                    stop_reason = "the dry run was cancelled"
                elif time.monotonic() > self.deadline:
                    stop_reason = f"the dry run's {self.budget_s:g} s bound was reached"
                elif self.failure is not None:
                    for sibling in ready[position:]:
                        self._cancel(sibling)
                    break
                if stop_reason is not None:
                    break
                self._run_node(node_id)
            self.flights.abandon()
            if stop_reason is not None:
                break
        self.flights.close()
        for node_id in order:
            if self.status[node_id] == "pending":
                self._settle_not_run(node_id, stop_reason or "never reached")
        return WorkflowRun(
            self.results, self.notes, dict(self.stored), self.inputs, self.secret_inputs,
            self.ctx, self.secret_ctx, error=self.error,
        )

    # A node is decided once all its dependencies settled: runnable (`ready`, by plan position)
    # when one reached it on a taken path, else skipped. Each settling counts down its
    # dependents, so a whole run does work in proportion to its nodes and edges, not to nodes
    # times steps.

    def _track(self, order: list[str]) -> None:
        self.plan_position = {node_id: position for position, node_id in enumerate(order)}
        self.authored: dict[str, int] = {}
        for node_id in self.graph.node_ids:
            if node_id in self.plan_position:
                self.authored.setdefault(node_id, len(self.authored))
        self.deps = {node_id: [dep for dep in self.graph.predecessors.get(node_id, ())
                               if dep in self.status] for node_id in order}
        self.dependents: dict[str, list[str]] = {}
        self.waiting: dict[str, int] = {}
        for node_id in order:
            distinct = set(self.deps[node_id])
            self.waiting[node_id] = len(distinct)
            for dep in distinct:
                self.dependents.setdefault(dep, []).append(node_id)
        self.ready: list[tuple[int, str]] = []
        # Skips reproduce the fixpoint of authored-order passes: a node decided while a pass is
        # at `scan_at` is met later in that pass if it comes after, else in the next one.
        self.skip_pass: list[tuple[int, str]] = []
        self.skip_next_pass: list[tuple[int, str]] = []
        self.scan_at = -1
        for node_id in order:
            if self.waiting[node_id] == 0:
                self._decided(node_id)

    def _decided(self, node_id: str) -> None:
        if self._live(node_id):
            heapq.heappush(self.ready, (self.plan_position[node_id], node_id))
            return
        position = self.authored[node_id]
        heapq.heappush(
            self.skip_pass if position > self.scan_at else self.skip_next_pass,
            (position, node_id),
        )

    def _settle(self, node_id: str, status: str) -> None:
        self.status[node_id] = status
        for dependent in self.dependents.get(node_id, ()):
            self.waiting[dependent] -= 1
            if self.waiting[dependent] == 0:
                self._decided(dependent)

    def _live(self, node_id: str) -> bool:
        deps = self.deps[node_id]
        if not deps:
            return True
        for dep in deps:
            if self.status[dep] != "completed":
                continue
            if self.nodes[dep].type == "condition":
                if self.selected.get(dep) == node_id:
                    return True
                continue
            return True
        return False

    def _propagate_skips(self) -> None:
        while self.skip_pass:
            while self.skip_pass:
                self.scan_at, node_id = heapq.heappop(self.skip_pass)
                node = self.nodes[node_id]
                self.results.append(NodeRun(
                    node, node_id, node.type or "", "skipped", reason=self._skip_reason(node_id)
                ))
                self._settle(node_id, "skipped")
            self.skip_pass, self.skip_next_pass = self.skip_next_pass, []
            self.scan_at = -1

    def _skip_reason(self, node_id: str) -> str:
        deps = self.deps[node_id]
        for dep in deps:
            if self.nodes[dep].type == "condition" and self.status[dep] == "completed":
                return f'{dep} chose "{self.selected.get(dep)}"'
        for dep in deps:
            state = self.status[dep]
            said = "failed" if state == "failed" else "was skipped"
            return f'upstream "{dep}" {said}'
        return "unreachable"

    def _settle_not_run(self, node_id: str, reason: str) -> None:
        node = self.nodes[node_id]
        self.results.append(NodeRun(node, node_id, node.type or "", "not-run", reason=reason))
        self._settle(node_id, "not-run")

    def _cancel(self, node_id: str) -> None:
        """A node claimed with the one that failed: the engine had dispatched it, so the run's
        abort settles it `failed` with the handlers' `cancelled()` outcome (node-handlers/scope.ts;
        engine.ts `#onOutcome`), and its dependents are skipped as a failed node's are."""
        node = self.nodes[node_id]
        entry = NodeRun(node, node_id, node.type or "", "failed",
                        reason=f"cancelled when `{self.failure}` failed")
        self._fail(entry, "cancelled", "the run was cancelled")
        self.results.append(entry)
        self._settle(node_id, "failed")

    # --- one node -----------------------------------------------------------------------------

    def _run_node(self, node_id: str) -> None:
        node = self.nodes[node_id]
        started = time.perf_counter()
        entry = NodeRun(node, node_id, node.type or "", "ran")
        self.evaluation_offset = 0.0
        try:
            self._execute(node, entry)
            if entry.status != "failed":
                self._bound(entry)
        finally:
            entry.ms = (time.perf_counter() - started - self.evaluation_offset) * 1000
        self.results.append(entry)
        if entry.status == "failed":
            self.failure = self.failure or node_id
            self._settle(node_id, "failed")
        else:
            self.stored[node_id] = entry.value
            if entry.value is not UNDEFINED:
                self.visible[node_id] = entry.value
            self._settle(node_id, "completed")

    def _bound(self, entry: NodeRun) -> None:
        """Keep the output within the engine's size bounds, or fail the node as it would."""
        size, measured = serialized_bytes(entry.value, self.sizes)
        refused = breach(entry.id, size, self.state_bytes)
        if refused is None:
            self.state_bytes += size
            self.sizes.update(measured)
            return
        entry.value = UNDEFINED
        self._fail(entry, "validation", refused)

    def _fail(self, entry: NodeRun, code: str, message: str) -> None:
        entry.status = "failed"
        entry.error = {"code": code, "message": message, "retryable": False}

    def _execute(self, node: NodeDef, entry: NodeRun) -> None:
        kind = node.type
        if kind == "input":
            entry.value = {
                name: {"secret": True, "ref": f"inputs.{name}"} if name in self.secret_inputs
                else value
                for name, value in self.inputs.items()
            }
        elif kind == "parallel":
            entry.value = None
        elif kind == "output":
            entry.value = self._capture(entry.id)
        elif kind in PINNED_TYPES:
            self._pin_or_synthesize(node, entry)
        elif kind in EVALUATED_TYPES:
            self._evaluated(node, entry)
        else:
            self._fail(entry, "internal", f"no dry run for node type `{kind}`")

    def _shared(self, node_id: str) -> SharedValue:
        shared = self.shared.get(node_id)
        if shared is None:
            shared = self.shared[node_id] = SharedValue(
                self.stored[node_id], f"scope.run.outputs.{node_id}"
            )
        return shared

    def scope_for(self, node_id: str) -> Scope:
        """The scope the node's expression sees: what the run gave it, with the samples'
        `nodes.<id>` laid over it (as `run --node` does for the node it runs). The run's inputs
        and every stored output go in as SharedValues: checked and serialised once per run."""
        own = self.samples.nodes.get(node_id, {})
        if "inputs" in own or "ctx" in own:
            base = base_scope(self.workflow, self.graph, self.samples.for_node(node_id), [])
        else:
            if self.shared_inputs is None:
                self.shared_inputs = {
                    key: SharedValue(value, f"scope.inputs.{key}")
                    for key, value in self.base.inputs.items()
                    if key not in self.base.secret_inputs
                }
            shared = self.shared_inputs
            base = self.base._replace(inputs={
                key: shared.get(key, value) for key, value in self.base.inputs.items()
            })
        scope = engine_scope(
            self.graph, node_id, self.nodes[node_id].type, base, self.stored,
            own.get("outputs", {}), own.get("branches"), self._shared,
        )
        return Scope.from_json(scope)

    def _branches(self, node_id: str) -> list[Any]:
        return [self.stored[branch]
                for branch in completed_branches(self.graph, node_id, self.stored)]

    def _capture(self, node_id: str) -> Any:
        """The engine's `runOutput` (io.ts, ADR-0091 as amended 2026-09-03): its completed
        value-producing feeders (`feederNodeIds`: a condition or parallel only gates it) — none
        is `null`, one is captured verbatim, several a record keyed by sorted id."""
        feeders = sorted(dep for dep in self.deps[node_id] if dep in self.stored
                         and self.nodes[dep].type not in CONTROL_TYPES)
        if not feeders:
            return None
        if len(feeders) == 1:
            return self.stored[feeders[0]]
        return {feeder: self.stored[feeder] for feeder in feeders
                if self.stored[feeder] is not UNDEFINED}

    def _evaluated(self, node: NodeDef, entry: NodeRun) -> None:
        strategy = node.merge_strategy if node.type == "merge" else None
        if node.type == "merge" and strategy != "custom":
            value, refused = merged(strategy, self._branches(entry.id))
            if refused is None:
                entry.value = value
            else:
                self._fail(entry, "validation", refused)
            return
        if node.expression is None:
            field_name = {"condition": "expression", "transform": "transform"}.get(
                node.type or "", "merge_fn"
            )
            self._fail(entry, "validation", f"`{entry.id}` has no `{field_name}` to evaluate")
            return
        if self.samples.nodes.get(entry.id):
            self.notes.append(f"`{entry.id}` ran with the samples' `nodes.{entry.id}` laid over "
                              "its scope")
        try:
            outcome, self.evaluation_offset = self.flights.take(
                entry.id, node.expression.value, node.expression.kind,
                lambda: self.scope_for(entry.id),
            )
        except ScopeError as refused:
            # a value nested too deeply for a scope: the sandbox refuses it before evaluating
            outcome = failed_outcome(node.expression.value, SandboxError("scope", str(refused)))
        entry.outcome = outcome
        if outcome.error is not None:
            entry.status = "failed"
            entry.error = error_json(outcome, node.expression, self.workflow.source)
            entry.hint = self._synthesized_cause(node, entry.id)
            if entry.hint is not None:
                self.notes.append(entry.hint)
            return
        if node.type != "condition":
            entry.value = json_value(outcome.value)
            return
        self._route(node, entry, outcome.value)

    def _synthesized_cause(self, node: NodeDef, node_id: str) -> str | None:
        return synthesized_cause(self.graph, self.results, node, node_id)

    def _route(self, node: NodeDef, entry: NodeRun, result: Any) -> None:
        target = next(
            (branch.target.id for branch in node.branches
             if branch.target is not None and branch.when is not None
             and strictly_equal(branch.when.value, result)),
            node.default.id if node.default is not None else None,
        )
        if target is None:
            self._fail(entry, "validation",
                       "the condition matched no branch and declares no default")
            return
        self.selected[entry.id] = target
        entry.reason = f'{value_text(result, REASON_LIMIT)} chose "{target}"'

    def _pin_or_synthesize(self, node: NodeDef, entry: NodeRun) -> None:
        problem = unresolvable_template(
            node, {"inputs": self.inputs, "ctx": self.ctx, "run.outputs": self.visible},
            self.secret_inputs,
        )
        if problem is not None:
            self._fail(entry, "validation", problem[0])
            entry.where = problem[1]
            return
        own = self.samples.nodes.get(entry.id, {}).get("outputs", {})
        pins = own if entry.id in own else self.samples.outputs
        if entry.id in pins:
            entry.status, entry.value = "pinned", json_value(pins[entry.id])
            if (mismatch := pin_mismatch(self.workflow, node, entry.value,
                                         self.file_agent)) is not None:
                self.notes.append(mismatch)
            if node.type == "human_gate" and entry.value is None:
                # a gate's pin is its decision's payload; the engine keeps `payload ?? {decision}`
                # (engine.ts `resume`), so a null payload stores the bare decision
                entry.value = dict(GATE_INPUT_PROVIDED)
            return
        entry.status = "synthesized"
        entry.value = synthesized(self.workflow, node, self.file_agent)


def run_workflow(
    workflow: Workflow,
    graph: Graph,
    evaluate: Evaluate,
    samples: Samples = SYNTHESIZED,
    *,
    members: set[str] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    budget_s: float = RUN_BUDGET_S,
    file_agent: FileAgent | None = None,
    workers: int = 1,
) -> WorkflowRun:
    """Dry-run the workflow (or only `members`, e.g. a node's ancestors). The graph must be
    acyclic (the engine refuses a cycle before running). `file_agent` (`AnalysisResult.
    file_agent`) gives an agent node whose agent is in an agent file that agent's
    `output_schema`. `workers` above 1 evaluates each step's nodes together in that many
    threads (`evaluate` must then be thread-safe, as the worker pool is)."""
    runner = _Runner(workflow, graph, samples, evaluate, cancelled, budget_s, file_agent, workers)
    result = runner.run(members)
    result.stale = stale_outputs(result, samples)
    if result.stale is not None:
        result.notes.append(result.stale)
    return result
