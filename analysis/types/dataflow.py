"""The type of every value a node's expressions and templates read: the inputs, the context, each
earlier node's output as the engine stores it, and a merge's `branches`.

Contract:
- `TypedValue(type, origin, enforced)`: a type, where it comes from in words for hover
  (`"classify's output_schema"`, `"the declared inputs"`), and whether the engine holds the
  value to it (`enforced`; False for a transform's declared `output_schema`, which the engine does
  not check: such a type is shown, never judged).
- `Dataflow.output_of(node_id)` → the node's output as the engine produces it, None for a node
  that stores none (a condition) or no node of that id. By node type (HodeTech/Relavium):
  - agent → its `output_schema` (the node's, else its agent's: `output_schema_of`), which the
    engine validates the parsed output against, failing the node otherwise (ADR-0092 §4, newer
    than the July snapshot's parse-only `agent-runner.ts` `buildChatTurnOutcome`, 839f2bd);
    without one, text (same function: `result.text`). An agent asked for media
    (`output_modalities` beyond text) answers `{text, media}` before any schema applies, and an
    agent not known here (a `$ref` file the workspace did not resolve) may have a schema:
    both unknown.
  - transform → the value of its expression (`node-handlers/transform.ts`, 839f2bd: its
    `output_schema` is not validated), inferred by `analysis.types.infer` (`text_type`) and
    handed on as JSON (`returned_type`: a top-level undefined fails the node); where that is
    unknown, its declared `output_schema`, not enforced.
  - merge (`node-handlers/fan-in.ts`, 839f2bd) over the completed fan-in branches in fan-in
    order: `concat` → the array of them; `first` → the first, or null when none completed;
    `object_merge` → their keys assigned in order (each must be an object, or the node fails);
    `custom` → the value of `merge_fn`.
  - human_gate → `decision.payload ?? {decision}` (`engine.ts` `resume`, 839f2bd;
    `GateDecisionValueSchema` in `shared/src/run-event.ts`): the record, or any payload.
  - input → the inputs, a secret one masked as `{secret: true, ref}` (`node-handlers/io.ts`,
    `scope.ts` `maskSecretInputs`, 839f2bd); output → unknown (one feeder's value, an object
    of several, or null: `io.ts` `runOutput`); parallel → null (`fan-out.ts`); a type this
    module does not know → unknown.
- `Dataflow.roots_for(node_id, producers=None)` → the types of the free names a node's
  expression reads: `inputs` (closed: the engine admits no undeclared key, ADR-0083), `ctx`
  (every key a string: `interpolation/resolve.ts` `resolveContext`), `run` (`{outputs}`: the
  node's ancestors but conditions, as `dryrun.scope.engine_scope` builds it; open, so a read of
  another id is unknown here and judged by the output-reference rules) and, in a merge,
  `branches`. `producers` limits `run.outputs` to the ids an expression reads (a node of a long
  chain has thousands of ancestors; the rest stay unknown). With `enforced_only`, a type the
  engine does not hold a value to is unknown.
- `Dataflow.read_type(node_id, root, path)` → a literal read path's type (`inputs.topic`,
  `run.outputs.classify.severity`: root `"run"`, path `["outputs", "classify", "severity"]`) and
  where it comes from.
- `Dataflow.expression_value(node)` → the type of the value of a node's expression (a
  condition's, a transform's, a custom merge's) before the engine hands it on.
- `dataflow_of(workflow, graph, file_agent, reads)` → the Dataflow of one analysis. Outputs are
  derived on first use, each once, so building one costs nothing until asked. The rules share
  one per analysis through `RuleContext.shared` (`analysis.checks.typed_reads.dataflow`, which
  passes the workspace's file agents); the editor logic, which holds an `AnalysisResult`, calls
  `dataflow_of(result.workflow, result.graph)` once per request. No Dataflow outlives its
  caller: it holds the workflow, and one kept beside it would keep every analysis's tree. What
  outlives it is `Dataflow.memo` (`TypesMemo`: values only), which the analysis keeps on its
  result (`AnalysisResult.types_memo`) and hands the next version's Dataflow (`earlier`): an
  expression's types are taken over when its text, node type, the types of the outputs it reads
  (and a merge's branches) and the inputs' and context's types are all equal; on a graph with a
  cycle nothing is taken over or kept. Derived outputs are taken over too, as
  `analysis.types.memo` says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from analysis.document.expressions import analyze_expression
from analysis.document.graph import Graph
from analysis.document.model import FileAgent, NodeDef, Workflow
from analysis.document.yaml_nodes import YMapping, YNode, plain_value
from analysis.schema.output_schema import compile_output_schema
from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    Literals,
    NullType,
    ObjectType,
    StringType,
    UndefinedType,
    Union,
    ValueType,
)
from analysis.types.algebra import join, merged_objects, options
from analysis.types.infer import member_type
from analysis.types.inputs import inputs_type
from analysis.types.memo import (
    UNKNOWN,
    ExpressionKey,
    KeptOutput,
    OutputKey,
    TypedValue,
    TypesMemo,
    graph_shape,
)
from analysis.types.text_types import expression_types, schema_type

# `GateDecisionValueSchema` (shared/src/run-event.ts, 839f2bd)
GATE_DECISIONS = ("approved", "rejected", "input_provided")
_GATE_RECORD = ObjectType((("decision", Literals(GATE_DECISIONS)),), frozenset({"decision"}),
                          None)
_MASKED_SECRET = ObjectType((("secret", Literals((True,))), ("ref", StringType())),
                            frozenset({"secret", "ref"}), None)
_ABSENT = object()  # an output neither version derived (no node of that id)


class Dataflow:
    def __init__(self, workflow: Workflow, graph: Graph, file_agent: FileAgent | None = None,
                 reads: Mapping[str, Sequence[str]] | None = None,
                 earlier: TypesMemo | None = None) -> None:
        self.workflow = workflow
        self.graph = graph
        self.file_agent = file_agent
        self._reads = reads
        self._outputs: dict[str, TypedValue | None] = {}
        self._branches: dict[str, list[str]] = {}
        self._deriving: set[str] = set()
        # each node on the derivation stack: its previous output if it may be taken over, and
        # the producers to derive first
        self._planned: dict[str, tuple[KeptOutput | None, tuple[str, ...]]] = {}
        self._inputs: ObjectType | None = None
        self._ctx: ObjectType | None = None
        self.memo: TypesMemo | None = None
        self._earlier: dict[str, tuple[ExpressionKey, tuple[ValueType, ValueType]]] = {}
        self._earlier_outputs: dict[str, KeptOutput] = {}
        self.earlier_sites: dict[object, tuple[object, object]] = {}
        # On a cycle a type read while it is derived is unknown, so types depend on the order
        # they are asked in: nothing is reused or kept.
        if graph.cycle is None:
            self.memo = TypesMemo(self.inputs, self.ctx, shape=graph_shape(graph))
            if earlier is not None and earlier.inputs == self.inputs and \
                    earlier.ctx == self.ctx:
                # the earlier objects, so that the types built from them compare by identity
                self._inputs = self.memo.inputs = earlier.inputs
                self._ctx = self.memo.ctx = earlier.ctx
                self._earlier = earlier.expressions
                self.earlier_sites = earlier.sites
                if earlier.shape == self.memo.shape:
                    self._earlier_outputs = earlier.outputs
                    self._take_over_outputs()

    # -- the values every node sees alike

    @property
    def inputs(self) -> ObjectType:
        if self._inputs is None:
            self._inputs = inputs_type(self.workflow.inputs)
        return self._inputs

    @property
    def ctx(self) -> ObjectType:
        if self._ctx is None:
            keys = list(dict.fromkeys(entry.key for entry in self.workflow.context
                                      if entry.key is not None))
            self._ctx = ObjectType(tuple((key, StringType()) for key in keys), frozenset(keys),
                                   None)
        return self._ctx

    # -- outputs

    def output_of(self, node_id: str) -> TypedValue | None:
        if node_id not in self._outputs:
            self._derive_with_producers(node_id)
        return self._outputs.get(node_id)

    def _derive_with_producers(self, node_id: str) -> None:
        """Derive the node's output after those of the nodes its type is inferred from, in
        that order, without recursion (a chain of transforms is thousands deep)."""
        stack: list[tuple[str, bool]] = [(node_id, False)]
        while stack:
            current, ready = stack.pop()
            if current in self._outputs:
                continue
            node = self.workflow.node(current)
            if node is None:
                self._outputs[current] = None
            elif ready:
                self._outputs[current] = self._output_taken_over(node,
                                                                 *self._planned.pop(current))
                self._deriving.discard(current)
            elif current not in self._deriving:
                self._deriving.add(current)
                stack.append((current, True))
                kept = self._kept_output(node)
                producers = kept.producers if kept is not None else tuple(self._producers(node))
                self._planned[current] = (kept, producers)
                stack.extend((producer, False) for producer in producers
                             if producer not in self._outputs)
            # else: met again while its producers are derived, a cycle (its own rule reports
            # it): the inner use reads it as unknown (`_derived`)

    def _take_over_outputs(self) -> None:
        """Every output the previous version derived that nothing it depends on changed: not
        its text or reads, no producer's, transitively, and an agent's derived again equal
        (taken over as derived by `_output_taken_over`, one by one, this is the same set: done
        here in one pass, a keystroke's outputs cost a comparison each)."""
        assert self.memo is not None
        earlier, memo, nodes = self._earlier_outputs, self.memo, self.workflow.nodes_by_id
        changed: list[str] = []
        readers: dict[str, list[str]] = {}
        for name, kept in earlier.items():
            node = nodes.get(name)
            producers = kept.producers
            if producers:  # most outputs have none: a loop and a test fewer each
                for producer in producers:
                    readers.setdefault(producer, []).append(name)
                if any(producer not in earlier for producer in producers):
                    changed.append(name)
                    continue
            if node is None:
                changed.append(name)
            elif node.type == "agent":
                if self._derive(node) != kept.output:
                    changed.append(name)
            elif kept.key != self._output_key(node):
                changed.append(name)
        stale = set(changed)
        while changed:
            for reader in readers.get(changed.pop(), ()):
                if reader not in stale:
                    stale.add(reader)
                    changed.append(reader)
        taken = {name: kept for name, kept in earlier.items() if name not in stale}
        memo.outputs.update(taken)
        self._outputs.update({name: kept.output for name, kept in taken.items()})
        expressions = self._earlier
        memo.expressions.update({name: expressions[name] for name in taken
                                 if name in expressions})

    def _output_key(self, node: NodeDef) -> OutputKey:
        mapping = node.mapping
        reads = tuple(self._output_reads(node)) if node.expression is not None else ()
        return self.workflow.source.text[mapping.start:mapping.end], reads

    def _kept_output(self, node: NodeDef) -> KeptOutput | None:
        """The previous version's output of the node, if derived from the same text and reads
        on a graph of the same shape (so from the same producers); None for an agent, whose
        output depends on its agent's declaration elsewhere (its own or another file)."""
        kept = self._earlier_outputs.get(node.id or "")
        if kept is None or node.type == "agent" or kept.key != self._output_key(node):
            return None
        return kept

    def _output_taken_over(self, node: NodeDef, kept: KeptOutput | None,
                           producers: tuple[str, ...]) -> TypedValue | None:
        """The node's output: the previous version's object (`kept`) when every producer's
        output is the previous version's too; else derived, and still the previous object when
        equal to it (so that what reads it compares by identity)."""
        memo, name = self.memo, node.id
        if memo is None or name is None:
            return self._derive(node)
        if kept is not None and all(self._outputs.get(producer, _ABSENT) is self._earlier_output(
                producer) for producer in kept.producers):
            expression = self._earlier.get(name)
            if expression is not None:
                memo.expressions[name] = expression
            memo.outputs[name] = kept
            return kept.output
        output = self._derive(node)
        earlier = self._earlier_outputs.get(name)
        if earlier is not None and earlier.output == output:
            output = earlier.output
        memo.outputs[name] = KeptOutput(self._output_key(node), producers, output)
        return output

    def _earlier_output(self, node_id: str) -> object:
        kept = self._earlier_outputs.get(node_id)
        return _ABSENT if kept is None else kept.output

    def _producers(self, node: NodeDef) -> list[str]:
        """The nodes whose outputs the node's own output type is derived from."""
        assert node.id is not None
        found: list[str] = []
        if node.type == "merge":
            found.extend(self._fan_in_branches(node.id))
        if node.expression is not None and node.type in ("transform", "merge"):
            ancestors = self.graph.ancestors(node.id)
            found.extend(read for read in self._output_reads(node) if read in ancestors)
        return [producer for producer in found if producer != node.id]

    def _fan_in_branches(self, merge_id: str) -> list[str]:
        """`Graph.fan_in_branches`, computed once per merge (a merge's type reads it thrice)."""
        found = self._branches.get(merge_id)
        if found is None:
            found = self._branches[merge_id] = self.graph.fan_in_branches(merge_id)
        return found

    def _derived(self, node_id: str) -> TypedValue | None:
        """An output already derived (a producer's), unknown while it is being derived."""
        if node_id in self._deriving and node_id not in self._outputs:
            return UNKNOWN
        return self.output_of(node_id)

    def _derive(self, node: NodeDef) -> TypedValue | None:
        name = node.id
        if node.type == "condition":
            return None
        if node.type == "agent":
            return self._agent(node)
        if node.type == "transform":
            return self._transform(node)
        if node.type == "merge":
            return self._merge(node)
        if node.type == "human_gate":
            return TypedValue(Union((_GATE_RECORD, AnyValue())),
                              f"{name}'s decision record (or the input given)")
        if node.type == "input":
            masked = tuple((key, _MASKED_SECRET if key in self.graph.secret_inputs else value)
                           for key, value in self.inputs.properties)
            return TypedValue(ObjectType(masked, self.inputs.required, None,
                                         descriptions=self.inputs.descriptions),
                              "the declared inputs")
        if node.type == "parallel":
            return TypedValue(NullType(), f"{name} is a parallel, which stores null")
        return UNKNOWN

    def _agent(self, node: NodeDef) -> TypedValue:
        modalities = node.mapping.get("output_modalities")
        if modalities is not None and plain_value(modalities.value) not in (None, ["text"]):
            return UNKNOWN
        entry = self.workflow.output_schema_of(node, self.file_agent)
        if entry is not None:
            # the workflow's own schemas are compiled once per text
            inline = entry is self.workflow.output_schema_of(node)
            value_type = self._schema_type(entry.value, inline)
            owner = node.id if node.mapping.get("output_schema") is not None else \
                f"agent {node.agent_ref.id if node.agent_ref else ''}"
            return UNKNOWN if value_type is None else \
                TypedValue(value_type, f"{owner}'s output_schema")
        if self._agent_known(node):
            return TypedValue(StringType(), f"{node.id} has no output_schema: it answers text")
        return UNKNOWN

    def _schema_type(self, schema: YNode, inline: bool) -> ValueType | None:
        """The type an `output_schema` value describes; one of this document's (`inline`) is
        compiled once per text across analyses (the type is a function of the text alone)."""
        if not inline:
            return compile_output_schema(schema).value_type
        return schema_type(self.workflow.source.text[schema.start:schema.end], schema)

    def _agent_known(self, node: NodeDef) -> bool:
        """Whether the node's agent is known to declare no `output_schema` (inline, or in a
        file the workspace read)."""
        if node.agent_ref is None:
            return False
        agent = self.workflow.agent_for(node)
        if agent is not None:
            return not agent.is_ref
        return self.file_agent is not None and self.file_agent(node.agent_ref.id) is not None

    def _transform(self, node: NodeDef) -> TypedValue:
        inferred = self._inferred(node)
        if not isinstance(inferred, AnyValue):
            return TypedValue(inferred, f"inferred from {node.id}'s transform")
        declared = node.mapping.get("output_schema")
        if declared is not None and isinstance(declared.value, YMapping):
            value_type = self._schema_type(declared.value, inline=True)
            if value_type is not None:
                return TypedValue(value_type, f"{node.id}'s output_schema (not checked by the "
                                              "engine)", enforced=False)
        return UNKNOWN

    def _merge(self, node: NodeDef) -> TypedValue:
        assert node.id is not None
        strategy = node.merge_strategy
        branch = self.branch_type(node.id)
        where = f"{node.id}'s merge ({strategy})"
        if strategy == "concat":
            count = len(self._fan_in_branches(node.id))
            return TypedValue(ArrayType(branch, max_items=count), where)
        if strategy == "first":
            return TypedValue(join(branch, NullType()), where)
        if strategy == "object_merge":
            merged = merged_objects(list(options(branch)))
            return UNKNOWN if merged is None else TypedValue(merged, where)
        if strategy == "custom":
            inferred = self._inferred(node)
            if not isinstance(inferred, AnyValue):
                return TypedValue(inferred, f"inferred from {node.id}'s merge_fn")
        return UNKNOWN

    def _inferred(self, node: NodeDef) -> ValueType:
        """What the node's expression hands on: its value as JSON, a top-level undefined
        failing the node."""
        return self._expression_types(node)[1]

    def expression_value(self, node: NodeDef) -> ValueType:
        """The type of the value of the node's expression (a condition's, a transform's, a
        custom merge's), under the types of the outputs it reads (the others unknown) the
        engine holds them to."""
        return self._expression_types(node)[0]

    def _expression_types(self, node: NodeDef) -> tuple[ValueType, ValueType]:
        if node.id is None or node.expression is None:
            return AnyValue(), AnyValue()
        source = node.expression.value
        reads = self._read_producers(node.id, self._output_reads(node))
        if self.memo is None:
            roots = self.roots_for(node.id, reads, enforced_only=True)
            return expression_types(source, tuple(roots.items()))
        key: ExpressionKey = (source, node.type, *((read, self._derived(read)) for read in reads))
        if node.type == "merge":
            key += tuple((branch, self.workflow.node(branch) is None, self._derived(branch))
                         for branch in self._fan_in_branches(node.id))
        kept = self._earlier.get(node.id)
        if kept is not None and kept[0] == key:
            types = kept[1]
        else:
            roots = self.roots_for(node.id, reads, enforced_only=True)
            types = expression_types(source, tuple(roots.items()))
        self.memo.expressions[node.id] = (key, types)
        return types

    def _read_producers(self, node_id: str, producers: Sequence[str] | None) -> Sequence[str]:
        """The ids among `producers` (all, when None) whose outputs the node can read: its
        ancestors but itself."""
        ancestors = self.graph.ancestors(node_id)
        if producers is None:
            return [key for key in ancestors if key != node_id]
        return [key for key in dict.fromkeys(producers) if key in ancestors and key != node_id]

    def _output_reads(self, node: NodeDef) -> Sequence[str]:
        """The ids whose `run.outputs` the node's expression reads literally."""
        if self._reads is not None:
            return self._reads.get(node.id or "", ())
        assert node.expression is not None
        return [read.node_id for read in analyze_expression(node.expression.value).output_reads]

    def branch_type(self, merge_id: str) -> ValueType:
        """The type of one element of the merge's `branches`: any completed value-producing
        fan-in branch's output (`Graph.fan_in_branches`: a condition or parallel only gates)."""
        found: list[ValueType] = []
        for branch in dict.fromkeys(self._fan_in_branches(merge_id)):
            if self.workflow.node(branch) is None:
                continue  # reported by unknown-node; it never completes
            produced = self._derived(branch)
            if produced is None or not produced.enforced:
                return AnyValue()
            found.append(produced.type)
        return join(*found) if found else AnyValue()

    # -- what a node reads

    def roots_for(self, node_id: str, producers: Sequence[str] | None = None, *,
                  enforced_only: bool = False) -> Mapping[str, ValueType]:
        outputs: list[tuple[str, ValueType]] = []
        for key in self._read_producers(node_id, producers):
            produced = self._derived(key)
            if produced is None:
                continue
            unknown = enforced_only and not produced.enforced
            outputs.append((key, AnyValue() if unknown else produced.type))
        outputs.sort()
        run_outputs = ObjectType(tuple(outputs), frozenset(key for key, _ in outputs))
        roots: dict[str, ValueType] = {
            "inputs": self.inputs,
            "ctx": self.ctx,
            "run": ObjectType((("outputs", run_outputs),), frozenset({"outputs"})),
        }
        node = self.workflow.node(node_id)
        if node is not None and node.type == "merge":
            roots["branches"] = ArrayType(self.branch_type(node_id))
        return roots

    def read_type(self, node_id: str, root: str,
                  path: Sequence[str | int]) -> TypedValue:
        if root == "run" and len(path) >= 2 and path[0] == "outputs" and \
                isinstance(path[1], str):
            if path[1] not in self.graph.ancestors(node_id) or path[1] == node_id:
                return UNKNOWN
            produced = self.output_of(path[1])
            if produced is None:
                return TypedValue(UndefinedType(), f"{path[1]} stores no output (a condition)")
            value_type, origin, rest = produced.type, produced.origin, path[2:]
            enforced, records = produced.enforced, 0
        else:
            roots = self.roots_for(node_id, ())
            if root not in roots:
                return UNKNOWN
            value_type, rest, enforced = roots[root], path, True
            # the scope's records have no prototype (expression-sandbox-spec.md, Scope): `run`
            # and `run.outputs`, `inputs`, `ctx`; a merge's branches are an ordinary array
            records = 0 if root == "branches" else 2 if root == "run" else 1
            origin = "the declared inputs" if root == "inputs" else \
                "the workflow's context" if root == "ctx" else \
                f"{node_id}'s branches" if root == "branches" else "the run"
        for index, key in enumerate(rest):
            value_type = member_type(value_type, key, null_prototype=index < records)
        return TypedValue(value_type, origin, enforced)


def dataflow_of(workflow: Workflow, graph: Graph, file_agent: FileAgent | None = None,
                reads: Mapping[str, Sequence[str]] | None = None,
                earlier: TypesMemo | None = None) -> Dataflow:
    """The Dataflow of one analysis of `workflow` (its graph, and with `file_agent` the
    workspace's file agents). Outputs are derived on first use, each once; nothing is kept
    beyond the Dataflow itself, which holds the analysis's objects only while a caller does.
    `reads` (node id → the ids its expression reads, as the analysis already found them) saves
    looking the expressions up again; without it each is looked up. `earlier` (the previous
    version's `Dataflow.memo`) gives back each expression's types whose key is unchanged."""
    return Dataflow(workflow, graph, file_agent, reads, earlier)
