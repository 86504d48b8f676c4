"""The type of every value a node reads, by node type as the engine produces it.

Engine facts pinned here, HodeTech/Relavium (July snapshot 839f2bd unless said):
- agent: `node.output_schema ?? agent.output_schema`, the parsed output validated against it, a
  miss failing the node (`engine/agent-runner.ts` `buildChatTurnOutcome`; ADR-0092 §4); without
  one the text; a media turn answers `{text, media}` first;
- transform: the expression's value, its `output_schema` not validated
  (`engine/node-handlers/transform.ts`);
- merge: `concat` the completed branches, `first` the first or null, `object_merge`
  `Object.assign` of objects, `custom` merge_fn's value (`engine/node-handlers/fan-in.ts`);
- human_gate: `decision.payload ?? {decision}` (`engine/engine.ts` `resume`), the decision one of
  `approved`, `rejected`, `input_provided` (`shared/src/run-event.ts` `GateDecisionValueSchema`);
- input: the inputs, secret ones masked `{secret: true, ref}` (`node-handlers/io.ts`,
  `node-handlers/scope.ts` `maskSecretInputs`); parallel: null (`node-handlers/fan-out.ts`);
- ctx: every key a string (`interpolation/resolve.ts` `resolveContext`);
- run.outputs: the node's ancestors but conditions (`node-handlers/scope.ts`
  `buildExpressionScope`, as `analysis/dryrun/scope.py` `engine_scope` builds it).
"""

from pathlib import Path

import pytest

from analysis.document.graph import build_graph
from analysis.document.model_build import build_workflow
from analysis.document.source import SourceText
from analysis.document.yaml_read import read_yaml
from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    BooleanType,
    Literals,
    NullType,
    NumberType,
    ObjectType,
    StringType,
    UndefinedType,
    Union,
)
from analysis.types.algebra import join
from analysis.types.dataflow import GATE_DECISIONS, Dataflow, dataflow_of

EXAMPLES = Path(__file__).parents[3] / "examples"


def flow(nodes: str, edges: str = "[]", extra: str = "") -> Dataflow:
    text = f"""schema_version: '1.0'
workflow:
  id: demo
{extra}  agents:
    - {{ id: writer, model: m, provider: anthropic, system_prompt: s }}
    - id: judge
      model: m
      provider: anthropic
      system_prompt: s
      output_schema: {{ type: object, properties: {{ ok: {{ type: boolean }} }} }}
    - {{ $ref: ./elsewhere.agent.yaml }}
  nodes:
{nodes}
  edges: {edges}
"""
    workflow = build_workflow(read_yaml(SourceText(text)))
    return dataflow_of(workflow, build_graph(workflow))


def test_an_agent_with_a_schema_outputs_its_type_and_names_it() -> None:
    data = flow("""    - id: classify
      type: agent
      agent_ref: writer
      output_schema:
        type: object
        additionalProperties: false
        required: [severity]
        properties:
          severity: { type: number, description: How bad it is }
          topic: { type: string }""")
    produced = data.output_of("classify")
    assert produced is not None
    assert produced.origin == "classify's output_schema"
    assert produced.enforced
    assert produced.type == ObjectType(
        (("severity", NumberType()), ("topic", StringType())), frozenset({"severity"}), None)
    assert isinstance(produced.type, ObjectType)
    assert produced.type.descriptions == (("severity", "How bad it is"),)


def test_an_agent_falls_back_to_its_agents_schema_and_else_answers_text() -> None:
    data = flow("""    - { id: a, type: agent, agent_ref: judge }
    - { id: b, type: agent, agent_ref: writer }""")
    judged = data.output_of("a")
    assert judged is not None and judged.origin == "agent judge's output_schema"
    assert judged.type == ObjectType((("ok", BooleanType()),))
    text = data.output_of("b")
    assert text is not None and text.type == StringType()


def test_an_agent_not_known_here_or_asked_for_media_is_unknown() -> None:
    data = flow("""    - { id: far, type: agent, agent_ref: elsewhere }
    - { id: missing, type: agent, agent_ref: nobody }
    - { id: painter, type: agent, agent_ref: writer, output_modalities: [text, image] }""")
    for node_id in ("far", "missing", "painter"):
        produced = data.output_of(node_id)
        assert produced is not None and produced.type == AnyValue(), node_id


def test_a_condition_stores_nothing_and_a_parallel_null() -> None:
    data = flow("""    - id: route
      type: condition
      expression: '"a"'
      branches: [{ when: a, target_node: fan }]
    - { id: fan, type: parallel, parallel_of: [x, y] }
    - { id: x, type: transform, transform: '1' }
    - { id: y, type: transform, transform: '2' }""")
    assert data.output_of("route") is None
    parallel = data.output_of("fan")
    assert parallel is not None and parallel.type == NullType()
    assert data.output_of("no-such-node") is None


def test_a_human_gate_outputs_its_decision_record_or_the_payload() -> None:
    data = flow("    - { id: gate, type: human_gate, gate_type: approval, message_template: ok }")
    produced = data.output_of("gate")
    assert produced is not None
    assert produced.type == Union((ObjectType((("decision", Literals(GATE_DECISIONS)),),
                                              frozenset({"decision"}), None), AnyValue()))
    assert GATE_DECISIONS == ("approved", "rejected", "input_provided")


INPUTS = """  inputs:
    - { name: topic, type: string, required: true, description: What it is about }
    - { name: tier, type: string, validation: { enum: [free, pro] } }
    - { name: floor, type: number, default: 3, validation: { min: 0, max: 10 } }
    - { name: token, type: secret }
    - { name: strict, type: boolean }
"""


def test_the_inputs_have_their_declared_types_and_only_required_or_defaulted_ones_are_sure(
) -> None:
    data = flow("    - { id: start, type: input }", extra=INPUTS)
    inputs = data.roots_for("start")["inputs"]
    assert inputs == ObjectType(
        (("topic", StringType()), ("tier", Literals(("free", "pro"))),
         ("floor", NumberType(minimum=0, maximum=10)), ("token", StringType()),
         ("strict", BooleanType())),
        frozenset({"topic", "floor"}), None)
    assert isinstance(inputs, ObjectType)
    assert inputs.descriptions == (("topic", "What it is about"),)
    # the input node stores them with the secret masked
    produced = data.output_of("start")
    assert produced is not None and isinstance(produced.type, ObjectType)
    assert produced.type.property("token") == ObjectType(
        (("secret", Literals((True,))), ("ref", StringType())), frozenset({"secret", "ref"}),
        None)
    assert produced.type.property("topic") == StringType()


def test_reading_an_optional_input_may_give_undefined() -> None:
    data = flow("    - { id: t, type: transform, transform: inputs.tier }", extra=INPUTS)
    assert data.read_type("t", "inputs", ["tier"]).type == join(
        Literals(("free", "pro")), UndefinedType())
    assert data.read_type("t", "inputs", ["topic"]).type == StringType()
    assert data.read_type("t", "inputs", ["typo"]).type == UndefinedType()
    # the inputs record has no prototype: no inherited toString there
    assert data.read_type("t", "inputs", ["toString"]).type == UndefinedType()


def test_every_context_key_is_a_string() -> None:
    data = flow("    - { id: t, type: transform, transform: ctx.team }",
                extra="  context:\n    - { key: team, value: eu }\n    - { key: n, value: '3' }\n")
    assert data.roots_for("t")["ctx"] == ObjectType(
        (("team", StringType()), ("n", StringType())), frozenset({"team", "n"}), None)
    read = data.read_type("t", "ctx", ["team"])
    assert read.type == StringType() and read.origin == "the workflow's context"


CHAIN = """    - id: classify
      type: agent
      agent_ref: writer
      output_schema:
        type: object
        additionalProperties: false
        properties: { severity: { type: number } }
    - id: route
      type: condition
      expression: '"a"'
      branches: [{ when: a, target_node: use }]
    - { id: use, type: transform, transform: run.outputs.classify.severity }
    - { id: later, type: transform, transform: '1' }"""
CHAIN_EDGES = "[{from: classify, to: route}, {from: 'route:a', to: use}, {from: use, to: later}]"


def test_run_outputs_hold_the_ancestors_but_conditions() -> None:
    data = flow(CHAIN, CHAIN_EDGES)
    run = data.roots_for("use")["run"]
    assert isinstance(run, ObjectType)
    outputs = run.property("outputs")
    assert isinstance(outputs, ObjectType)
    assert [name for name, _ in outputs.properties] == ["classify"]
    read = data.read_type("use", "run", ["outputs", "classify", "severity"])
    assert read.type == Union((NumberType(), UndefinedType()))
    assert read.origin == "classify's output_schema"
    # not an ancestor: the output-reference rules judge it, not the types
    assert data.read_type("classify", "run", ["outputs", "later"]).type == AnyValue()
    assert data.read_type("later", "run", ["outputs", "route"]).type == UndefinedType()


def test_roots_can_be_limited_to_the_producers_an_expression_reads() -> None:
    data = flow(CHAIN, CHAIN_EDGES)
    run = data.roots_for("later", ["use"])["run"]
    assert isinstance(run, ObjectType)
    outputs = run.property("outputs")
    assert isinstance(outputs, ObjectType)
    assert [name for name, _ in outputs.properties] == ["use"]
    assert outputs.additional == AnyValue()  # the others: unknown, never absent


def test_a_transforms_declared_schema_is_shown_but_not_enforced() -> None:
    data = flow("""    - id: shape
      type: transform
      transform: JSON.parse(inputs.raw)
      output_schema: { type: object, additionalProperties: false, properties: {} }
    - { id: use, type: transform, transform: run.outputs.shape.a }""",
                "[{from: shape, to: use}]")
    produced = data.output_of("shape")
    assert produced is not None and not produced.enforced
    assert produced.origin == "shape's output_schema (not checked by the engine)"
    unenforced = data.roots_for("use", enforced_only=True)["run"]
    assert isinstance(unenforced, ObjectType)
    assert unenforced.property("outputs") == ObjectType((("shape", AnyValue()),),
                                                        frozenset({"shape"}))


MERGE = """    - {{ id: fan, type: parallel, parallel_of: [a, b] }}
    - id: a
      type: agent
      agent_ref: writer
      output_schema:
        {{ type: object, additionalProperties: false, properties: {{ x: {{ type: number }} }} }}
    - id: b
      type: agent
      agent_ref: writer
      output_schema:
        {{ type: object, additionalProperties: false, properties: {{ y: {{ type: string }} }} }}
    - {{ id: m, type: merge, merge_strategy: {strategy}{merge_fn} }}"""
MERGE_EDGES = "[{from: fan, to: a}, {from: fan, to: b}, {from: a, to: m}, {from: b, to: m}]"
A = ObjectType((("x", NumberType()),), frozenset(), None)
B = ObjectType((("y", StringType()),), frozenset(), None)


@pytest.mark.parametrize(("strategy", "expected"), [
    ("concat", ArrayType(Union((A, B)), max_items=2)),
    ("first", Union((A, B, NullType()))),
    ("object_merge", ObjectType((("x", NumberType()), ("y", StringType())), frozenset(), None)),
])
def test_a_merge_outputs_by_its_strategy(strategy: str, expected: object) -> None:
    data = flow(MERGE.format(strategy=strategy, merge_fn=""), MERGE_EDGES)
    produced = data.output_of("m")
    assert produced is not None
    assert produced.type == expected
    assert produced.origin == f"m's merge ({strategy})"


def test_a_merge_reads_its_branches_as_an_array_of_the_branch_outputs() -> None:
    data = flow(MERGE.format(strategy="custom", merge_fn=", merge_fn: 'branches[0]'"),
                MERGE_EDGES)
    assert data.roots_for("m")["branches"] == ArrayType(Union((A, B)))
    assert "branches" not in data.roots_for("a")


def test_an_object_merge_of_a_non_object_is_unknown() -> None:
    data = flow(MERGE.format(strategy="object_merge", merge_fn="").replace(
        "{ type: object, additionalProperties: false, properties: { y: { type: string } } }",
        "{ type: string }"), MERGE_EDGES)
    produced = data.output_of("m")
    assert produced is not None and produced.type == AnyValue()


def test_a_long_chain_of_transforms_derives_without_recursion() -> None:
    count = 3000
    nodes = "\n".join(f"    - {{ id: t{i}, type: transform, transform: "
                      f"'run.outputs.t{i - 1}' }}" for i in range(1, count))
    edges = "[" + ", ".join(f"{{from: t{i - 1}, to: t{i}}}" for i in range(1, count)) + "]"
    data = flow("    - { id: t0, type: transform, transform: '1' }\n" + nodes, edges)
    assert data.output_of(f"t{count - 1}") is not None


def test_a_cycle_is_unknown_not_a_hang() -> None:
    data = flow("""    - { id: a, type: transform, transform: run.outputs.b }
    - { id: b, type: transform, transform: run.outputs.a }""",
                "[{from: a, to: b}, {from: b, to: a}]")
    produced = data.output_of("a")
    assert produced is not None


def test_the_examples_types_are_derived() -> None:
    text = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
    workflow = build_workflow(read_yaml(SourceText(text)))
    data = dataflow_of(workflow, build_graph(workflow))
    read = data.read_type("route", "run", ["outputs", "classify", "severity"])
    assert read.type == Union((NumberType(), UndefinedType()))
    assert data.output_of("route") is None
    enrich = data.output_of("enrich")
    assert enrich is not None and enrich.type == NullType()


def test_a_transforms_output_is_inferred_from_its_expression_under_its_roots() -> None:
    data = flow(CHAIN.replace("transform: '1'", "transform: '({ s: run.outputs.use, n: 1 })'"),
                CHAIN_EDGES)
    used = data.output_of("use")
    assert used is not None and used.origin == "inferred from use's transform"
    # a top-level undefined fails the node: a completed transform handed on a number
    assert used.type == NumberType()
    later = data.output_of("later")
    assert later is not None
    assert later.type == ObjectType((("s", NumberType()), ("n", Literals((1,)))),
                                    frozenset({"s", "n"}), None)


def test_a_custom_merge_outputs_the_inferred_value_of_its_merge_fn() -> None:
    data = flow(MERGE.format(strategy="custom", merge_fn=", merge_fn: 'branches.length'"),
                MERGE_EDGES)
    produced = data.output_of("m")
    assert produced is not None and produced.origin == "inferred from m's merge_fn"
    assert isinstance(produced.type, NumberType)
