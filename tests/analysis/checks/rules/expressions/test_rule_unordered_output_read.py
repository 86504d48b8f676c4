"""unordered-output-read: error when the engine refuses, warning when only the tree sees it."""

from analysis.diagnostics import Severity
from tests.analysis.checks.rules.expressions.expression_rule_helpers import (
    diagnostics,
    range_text,
    scalar,
    transform,
    workflow,
)


def route(expression: str, edges: str = "[{ from: start, to: route }]") -> str:
    return workflow(
        "    - { id: start, type: input }\n"
        "    - id: route\n"
        "      type: condition\n"
        f"      expression:{scalar(expression, 'double-quoted')}\n"
        "      branches: [{ when: 'a', target_node: late }]\n"
        "    - { id: late, type: transform, transform: '1' }\n",
        edges=edges,
    )


def test_engine_visible_read_of_a_downstream_node_is_an_error() -> None:
    text = route("run.outputs.late === 1")
    (found,) = diagnostics(text, "unordered-output-read")
    assert found.severity is Severity.ERROR
    assert range_text(text, found) == "run.outputs.late"
    assert "the engine refuses this workflow" in found.message
    # `late` runs after `route`, so an ordering edge would close a cycle: move the read instead.
    assert "`late` runs after `route`" in found.message
    assert "move the read to a node downstream of `late`" in found.message
    assert "add an edge" not in found.message
    assert found.data is not None
    assert (found.data["reader"], found.data["target"], found.data["grade"]) == (
        "route",
        "late",
        "engine",
    )
    (related,) = found.related
    assert (
        text.splitlines()[related.range.start.line][
            related.range.start.character : related.range.end.character
        ]
        == "late"
    )


def test_read_of_an_unrelated_node_suggests_the_ordering_edge() -> None:
    text = workflow(
        "    - { id: start, type: input }\n"
        "    - { id: side, type: transform, transform: '1' }\n"
        "    - id: reader\n"
        "      type: transform\n"
        f"      transform:{scalar('run.outputs.side', 'plain')}\n",
        edges="[{ from: start, to: side }, { from: start, to: reader }]",
    )
    (found,) = diagnostics(text, "unordered-output-read")
    assert "`side` is not an ancestor of `reader`" in found.message
    assert "add an edge from `side` to `reader`" in found.message


def test_read_only_a_syntax_tree_sees_is_a_warning() -> None:
    text = route("run.outputs.late.n / 2 > 1")
    (found,) = diagnostics(text, "unordered-output-read")
    assert found.severity is Severity.WARNING
    assert "`undefined` when the node runs" in found.message


def test_reading_its_own_output() -> None:
    text = route("run.outputs.route")
    (found,) = diagnostics(text, "unordered-output-read")
    assert "reads its own output" in found.message


def test_ancestors_are_fine_directly_and_transitively() -> None:
    text = workflow(
        "    - { id: start, type: input }\n"
        "    - { id: mid, type: transform, transform: 'run.outputs.start' }\n"
        + transform("last", 'run.outputs["start"] && run.outputs.mid'),
        edges="[{ from: start, to: mid }, { from: mid, to: last }]",
    )
    assert diagnostics(text, "unordered-output-read") == []


def test_not_a_read_of_the_scope_is_quiet() -> None:
    for expression in (
        "'run.outputs.late'",
        "((run) => run.outputs.late)(x)",
        "x.run.outputs.late",
    ):
        assert diagnostics(route(expression), "unordered-output-read") == [], expression


def test_unknown_node_is_not_this_rule() -> None:
    assert diagnostics(route("run.outputs.ghost"), "unordered-output-read") == []


def test_skipped_when_the_graph_has_a_cycle() -> None:
    text = route("run.outputs.late", edges="[{ from: late, to: route }]")
    assert diagnostics(text, "unordered-output-read") == []


def agent_workflow(agents: str, reader_expression: str) -> str:
    # start → writer (agent) → check (transform); `side` runs in parallel with the agent.
    return workflow(
        "    - { id: start, type: input }\n"
        "    - { id: side, type: transform, transform: '1' }\n"
        "    - { id: writer, type: agent, agent_ref: helper }\n"
        + transform("check", reader_expression),
        edges=(
            "[{ from: start, to: side }, { from: start, to: writer }, { from: writer, to: check }]"
        ),
    ).replace("  context: []\n", f"  context: []\n  agents: {agents}\n")


def test_an_agent_prompt_from_another_file_may_order_a_sibling() -> None:
    # helper's system prompt is in another file and may read run.outputs["side"]: unknowable.
    text = agent_workflow("[{ $ref: ./helper.agent.yaml }]", "run.outputs.side")
    assert diagnostics(text, "unordered-output-read") == []


def test_an_inline_agent_prompt_is_known() -> None:
    inline = "[{ id: helper, model: m, provider: p, system_prompt: 'hi' }]"
    text = agent_workflow(inline, "run.outputs.side")
    (found,) = diagnostics(text, "unordered-output-read")
    assert found.data is not None and found.data["target"] == "side"


def test_a_hidden_edge_cannot_order_a_downstream_node() -> None:
    # `late` comes after the agent, so no prompt edge into the agent could precede it.
    text = (
        agent_workflow("[{ $ref: ./helper.agent.yaml }]", "run.outputs.late")
        .replace("  edges: [", "  edges: [{ from: check, to: late }, ")
        .replace(
            "    - id: check\n",
            "    - { id: late, type: transform, transform: '2' }\n    - id: check\n",
        )
    )
    (found,) = diagnostics(text, "unordered-output-read")
    assert found.data is not None and found.data["target"] == "late"
