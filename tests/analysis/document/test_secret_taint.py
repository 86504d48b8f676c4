"""Secret taint through context values is a walk from the secret inputs, linear in the number of
context entries however their chain is ordered (issue 12, target 2: no quadratic scan)."""

from __future__ import annotations

from analysis.checks.analyze import analyze
from analysis.document.graph import Graph, build_graph
from tests.operations import lines_executed


def chain(length: int) -> str:
    """`k1` reads the secret input, each `k{i+1}` reads `k{i}`, written last link first: a scan
    to a fixed point over the entries learns one more key per pass."""
    entries = [f"    - {{ key: k{i + 1}, value: 'x {{{{ ctx.k{i} }}}}' }}\n"
               for i in range(length - 1, 0, -1)]
    entries += ["    - { key: k1, value: 'Bearer {{ inputs.token }}' }\n",
                "    - { key: plain, value: '{{ inputs.team }} {{ ctx.missing }}' }\n"]
    return ("schema_version: '1.0'\nworkflow:\n  id: taint\n  inputs:\n"
            "    - { name: token, type: secret }\n    - { name: team, type: string }\n"
            "  context:\n" + "".join(entries) + "  nodes:\n    - { id: start, type: input }\n"
            "  edges: []\n")


def graph_of(text: str) -> Graph:
    graph = analyze(text).graph
    assert graph is not None
    return graph


def test_a_long_chain_of_context_keys_is_tainted_in_linear_work() -> None:
    def cost(length: int) -> int:
        workflow = analyze(chain(length)).workflow
        assert workflow is not None
        graph = build_graph(workflow)  # the analysis computed its own graph's taint already
        found: list[frozenset[str]] = []
        work = lines_executed(lambda: found.append(graph.secret_context), "analysis")
        assert found == [frozenset(f"k{i}" for i in range(1, length + 1))]
        return work

    small, large = cost(40), cost(400)
    assert large <= small * 12, (small, large)


def test_the_engine_taint_names_each_link_of_the_chain() -> None:
    taint = graph_of(chain(4)).template_taint
    assert taint["ctx.k4"] == "ctx.k3" and taint["ctx.k1"] == "inputs.token"
    assert taint["inputs.token"] is None and "ctx.plain" not in taint


def test_only_secret_inputs_taint_what_the_sandbox_denies() -> None:
    # `{{ secrets.X }}` taints templates (the engine's load-time check) but a context value
    # reading it holds no secret input, so expressions may read it.
    text = chain(2).replace("'Bearer {{ inputs.token }}'", "'{{ secrets.API }}'")
    graph = graph_of(text)
    assert graph.secret_context == frozenset()
    assert graph.template_taint["ctx.k2"] == "ctx.k1"
    assert graph.template_taint["ctx.k1"] == "secrets.API"
