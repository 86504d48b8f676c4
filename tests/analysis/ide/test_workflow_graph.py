"""The workflow graph's model: the engine's edges as the graph draws them, groups and their
merges, branch gating and leaks (the leaked-branch rule's own facts), dry-run statuses."""

from __future__ import annotations

import json
import re

import pytest

from analysis.checks.analyze import analyze
from analysis.dryrun.results import NodeRun, WorkflowRun
from analysis.ide.workflow_graph import NotDrawable, WorkflowGraph, result_graph
from tests.conftest import EXAMPLES

LEAK_PATH = EXAMPLES / "broken" / "ticket-triage-leak.relavium.yaml"
LEAK = LEAK_PATH.read_text(encoding="utf-8")


def model_of(text: str, path: str = "w.relavium.yaml") -> WorkflowGraph:
    return result_graph(analyze(text, path))


def test_nodes_edges_and_labels_of_the_leaking_example() -> None:
    model = model_of(LEAK, str(LEAK_PATH))
    assert [(n.id, n.type) for n in model.nodes][:4] == [
        ("start", "input"), ("classify", "agent"), ("route", "condition"),
        ("escalate", "human_gate")]
    assert model.node("start") is not None and model.node("start").label == "Ticket received"
    edges = {(e.source, e.target, e.kind): e for e in model.edges}
    # the explicit `route:urgent` edge and the branch edge are one, labelled with the handle
    assert edges[("route", "escalate", "condition")].handles == ["urgent"]
    assert edges[("route", "enrich", "condition")].label == "normal | default"
    assert len(edges[("route", "enrich", "condition")].ranges) == 3  # branch, default, edge
    data = edges[("classify", "escalate", "data")]
    assert data.label == "message_template" and data.leak and not data.control
    line = LEAK.splitlines()[data.reads[0].range.start.line]
    assert line[data.reads[0].range.start.character:].startswith('classify"]')
    assert not edges[("classify", "route", "explicit")].leak
    assert [(g.parallel, g.members, g.merge) for g in model.groups] == [
        ("enrich", ["history", "sentiment"], "combine")]


def test_gating_and_leaks_are_the_rules_facts() -> None:
    result = analyze(LEAK, str(LEAK_PATH))
    model = result_graph(result)
    escalate = model.node("escalate")
    assert escalate is not None and escalate.gated_by == ["route:urgent"] and escalate.leaked
    assert {n.id for n in model.nodes if n.leaked} == {"escalate"}
    found = [d for d in result.diagnostics if d.rule == "leaked-branch"]
    assert len(found) == len(model.leaks) == 1
    assert found[0].range == model.leak_ranges[0]
    assert (found[0].data["source"], found[0].data["node"]) == (
        model.leaks[0].edge.source, model.leaks[0].edge.target)
    leaks = model.to_json()["leaks"]
    assert leaks == [{"node": "escalate", "source": "classify", "edge": "data",
                      "field": "message_template", "branch": "route:urgent", "enclosing": [],
                      "range": leaks[0]["range"]}]


def test_the_fixed_example_gates_without_leaking() -> None:
    model = model_of((EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8"))
    assert model.leaks == [] and not any(n.leaked for n in model.nodes)
    assert model.node("escalate").gated_by == ["route:urgent"]  # type: ignore[union-attr]


NESTED = """\
schema_version: '1.0'
workflow:
  id: nested
  nodes:
    - { id: start, type: input }
    - { id: outer, type: condition, expression: '"a"',
        branches: [{ when: a, target_node: inner }], default: other }
    - { id: inner, type: condition, expression: '"x"',
        branches: [{ when: x, target_node: deep }], default: other2 }
    - { id: deep, type: transform, transform: '1' }
    - { id: other, type: transform, transform: '2' }
    - { id: other2, type: transform, transform: '3' }
  edges:
    - { from: start, to: outer }
"""


def test_nested_branches_are_listed_outermost_first() -> None:
    model = model_of(NESTED)
    assert model.node("deep").gated_by == ["outer:a", "inner:x"]  # type: ignore[union-attr]
    assert model.groups == [] and model.leaks == []


def test_the_graph_json_is_versioned_and_serialisable() -> None:
    answer = model_of(LEAK).to_json()
    assert answer["version"] == 1 and answer["workflow"] == "ticket-triage-leak"
    assert set(answer) == {"version", "workflow", "nodes", "edges", "groups", "gates", "leaks"}
    node = answer["nodes"][0]
    assert set(node) == {"id", "type", "label", "range", "idRange", "gatedBy", "leaked"}
    json.dumps(answer)
    shifted = model_of(LEAK).to_json(lambda position: position.character + 100)
    assert shifted["nodes"][0]["idRange"]["start"]["character"] == (
        node["idRange"]["start"]["character"] + 100)


def test_dry_run_statuses_are_bounded_and_never_show_a_secret() -> None:
    result = analyze(LEAK, "w.relavium.yaml")
    assert result.workflow is not None
    nodes = result.workflow.nodes_by_id
    token = "tok-" + "s3cret" * 3
    run = WorkflowRun(
        [NodeRun(nodes["start"], "start", "input", "ran",
                 value={"ticket_text": "hi", "crm_token": token}),
         NodeRun(nodes["classify"], "classify", "agent", "pinned", value={"long": "x" * 500}),
         NodeRun(nodes["route"], "route", "condition", "ran", reason='"normal" chose "enrich"'),
         NodeRun(nodes["escalate"], "escalate", "human_gate", "failed",
                 error={"code": "timeout", "message": "m" * 400}),
         NodeRun(nodes["done"], "done", "output", "ran", value={"echo": f"Bearer {token}"})],
        notes=["a note"], inputs={"crm_token": token}, secret_inputs=["crm_token"])
    model = result_graph(result, run)
    statuses = {n["id"]: n.get("status") for n in model.to_json()["nodes"]}
    assert statuses["start"] == {"state": "ran",
                                 "value": '{"ticket_text": "hi", "crm_token": "[secret]"}'}
    assert statuses["done"]["value"] == '{"echo": "[secret]"}'
    assert token not in json.dumps(model.to_json())
    assert len(statuses["classify"]["value"]) == 120
    assert statuses["route"] == {"state": "ran", "reason": '"normal" chose "enrich"'}
    assert len(statuses["escalate"]["error"]) == 300
    assert statuses["enrich"] is None  # not in the run: no status claimed
    assert model.to_json()["run"] == {"ok": False, "notes": ["a note"]}


@pytest.mark.parametrize(("text", "path", "said"), [
    ("workflow: [unclosed\n", "w.relavium.yaml", "nothing to draw: "),
    ("schema_version: '1.0'\n", "w.relavium.yaml", "missing required field 'workflow'"),
    ("id: a\nmodel: m\n", ".relavium/agents/a.agent.yaml", "this is an agent file"),
])
def test_a_file_with_nothing_to_draw_says_why(text: str, path: str, said: str) -> None:
    with pytest.raises(NotDrawable, match=re.escape(said)):
        model_of(text, path)


def test_a_file_with_errors_still_draws_what_its_model_holds() -> None:
    text = LEAK.replace("type: transform", "type: transfrom", 1)
    model = model_of(text)
    assert any(d.severity.name == "ERROR" for d in analyze(text, "w.relavium.yaml").diagnostics)
    assert "transfrom" in {n.type for n in model.nodes}
