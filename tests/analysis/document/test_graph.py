"""The dependency graph: edge union, ancestors, cycles, fan-in order, secret taint."""

from analysis.checks.analyze import analyze
from analysis.document.graph import Graph
from tests.operations import lines_executed


def graph_of(text: str) -> Graph:
    result = analyze(text)
    assert result.graph is not None
    return result.graph


WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: demo
  inputs:
    - { name: token, type: secret }
  context:
    - { key: auth, value: 'Bearer {{ inputs.token }}' }
    - { key: header, value: 'X: {{ ctx.auth }}' }
    - { key: team, value: eu }
  agents:
    - { id: writer, model: m, provider: p, system_prompt: 'See {{ run.outputs["pick"] }}' }
  nodes:
    - { id: start, type: input }
    - id: pick
      type: condition
      expression: '"a"'
      branches:
        - { when: a, target_node: fan }
      default: other
    - { id: fan, type: parallel, parallel_of: [right, left] }
    - { id: left, type: transform, transform: '1' }
    - { id: right, type: transform, transform: '2' }
    - { id: other, type: transform, transform: '3' }
    - { id: join, type: merge, merge_strategy: concat }
    - { id: draft, type: agent, agent_ref: writer }
  edges:
    - { from: start, to: pick }
    - { from: 'pick:a', to: fan }
    - { from: fan, to: left }
    - { from: fan, to: right }
    - { from: other, to: join }
    - { from: left, to: join }
    - { from: right, to: join }
    - { from: fan, to: join }
"""


def test_edges_are_the_union_the_engine_builds() -> None:
    kinds = {(e.source, e.target, e.kind) for e in graph_of(WORKFLOW).edges}
    assert ("pick", "fan", "condition") in kinds and ("pick", "other", "condition") in kinds
    assert ("fan", "right", "parallel") in kinds
    assert ("pick", "draft", "data") in kinds  # through the agent's system_prompt
    assert ("start", "pick", "explicit") in kinds


def test_ancestors_are_transitive_and_behave_like_a_frozenset() -> None:
    graph = graph_of(WORKFLOW)
    ancestors = graph.ancestors("join")
    assert set(ancestors) == {"start", "pick", "fan", "left", "right", "other"}
    assert "join" not in ancestors and len(ancestors) == 6
    assert ancestors & frozenset({"left", "draft"}) == frozenset({"left"})
    assert ancestors - {"start"} == frozenset({"pick", "fan", "left", "right", "other"})
    assert "pick" in graph.ancestors("draft") and "draft" not in graph.ancestors("pick")


def test_fan_in_follows_the_parallel_order_then_every_other_feeder_in_authored_order() -> None:
    """The newest engine plan (dag.ts computeMergeBranchOrder, ADR-0091 as amended 2026-09-03):
    a parallel or condition feeding the merge is a control edge, not a branch (the July
    snapshot 839f2bd counted `fan` too)."""
    assert graph_of(WORKFLOW).fan_in_branches("join") == ["right", "left", "other"]


def test_secret_taint_flows_through_context_values() -> None:
    graph = graph_of(WORKFLOW)
    assert graph.secret_inputs == frozenset({"token"})
    assert graph.secret_context == frozenset({"auth", "header"})


def test_cycle_path_and_its_edges() -> None:
    text = WORKFLOW.replace("- { from: start, to: pick }",
                            "- { from: start, to: pick }\n    - { from: join, to: start }")
    graph = graph_of(text)
    assert graph.cycle is not None and graph.cycle[0] == graph.cycle[-1]
    assert "join" in graph.cycle and "start" in graph.cycle
    assert [(e.source, e.target) for e in graph.cycle_edges] == list(
        zip(graph.cycle, graph.cycle[1:], strict=False))
    result = analyze(text)
    [cycle] = [d for d in result.diagnostics if d.rule == "cycle"]
    assert len(cycle.related) == len(graph.cycle) - 1
    assert " → ".join(graph.cycle) in cycle.message


def fan_ins(count: int) -> str:
    """`count` parallel nodes, each fanning out to two transforms that a merge of its own joins."""
    nodes, edges = [], []
    for i in range(count):
        nodes += [f"    - {{ id: p{i}, type: parallel, parallel_of: [b{i}, a{i}] }}\n",
                  f"    - {{ id: a{i}, type: transform, transform: '1' }}\n",
                  f"    - {{ id: b{i}, type: transform, transform: '2' }}\n",
                  f"    - {{ id: m{i}, type: merge, merge_strategy: concat }}\n"]
        edges += [f"    - {{ from: start, to: p{i} }}\n", f"    - {{ from: a{i}, to: m{i} }}\n",
                  f"    - {{ from: b{i}, to: m{i} }}\n"]
    return ("schema_version: '1.0'\nworkflow:\n  id: fans\n  nodes:\n"
            "    - { id: start, type: input }\n" + "".join(nodes) + "  edges:\n" + "".join(edges))


def test_fan_in_order_of_every_merge_grows_linearly() -> None:
    # A dry run asks for every merge's order; each answer rescanned every node (10x the merges:
    # 100x the work). The witness is the graph's Python lines run, not time.
    def cost(count: int) -> int:
        graph = graph_of(fan_ins(count))
        assert graph.fan_in_branches("m0") == ["b0", "a0"]
        return lines_executed(
            lambda: [graph.fan_in_branches(f"m{i}") for i in range(count)], "analysis"
        )

    small, large = cost(30), cost(300)
    assert large <= small * 12, (small, large)
