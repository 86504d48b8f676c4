"""The renderer in a real browser (headless Chromium): the `graph --format html` page of a
20-node workflow with a leak and a dry run, and of the engine's 500-node ceiling, checked for
what was drawn (each node once, every edge, the leak red, statuses coloured, a tooltip showing a
value, groups as boxes), and the global API the VS Code webview uses. Screenshots go to the
test's output folder (their paths are printed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from analysis.ide.graph_formats import renderer_bundle
from tests.analysis.large_workflow import large_workflow
from tests.graph.browser import chromium_page, engine_ceiling, missing, open_graph

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))

LEAK_RED = "#dc2626"
STATUS_FILL = {"ran": "#16a34a", "pinned": "#2563eb", "synthesized": "#9333ea",
               "skipped": "#9ca3af", "failed": "#dc2626", "not-run": "#6b7280"}


def twenty_nodes_with_a_leak() -> str:
    """Two blocks of the generated workflow (21 nodes); the first block's gate reads the
    classifier's output in its message, a data edge that bypasses `b0-route:high`."""
    return large_workflow(2).replace(
        "message_template: 'Block 0: {{ inputs.topic }} needs a look'",
        "message_template: 'Block 0: {{ run.outputs[\"b0-classify\"].topic }} needs a look'")


# b0 routes low, yet its gate runs (the leak); b1 routes high, so its parallel is skipped
SAMPLES = {"inputs": {"topic": "printer on fire", "threshold": 3},
           "outputs": {"b0-classify": {"score": 1, "topic": "printer"},
                       "b1-classify": {"score": 9, "topic": "fire"}}}


def drawn(tmp_path: Path, text: str, *extra: str) -> tuple[Path, dict[str, Any]]:
    """The workflow's HTML page and graph JSON, through the real command line."""
    workflow = tmp_path / "flow.relavium.yaml"
    workflow.write_text(text, encoding="utf-8")
    html = tmp_path / "graph.html"
    command = [sys.executable, "-m", "server", "graph", str(workflow), *extra]
    made = subprocess.run([*command, "--format", "html", "-o", str(html)],
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    answer = subprocess.run([*command, "--format", "json"], capture_output=True, text=True,
                            timeout=120)
    return html, json.loads(answer.stdout)


def shapes(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => {
      const nodes = [...document.querySelectorAll("g.node[data-id]")];
      return {
        ids: nodes.map((n) => n.getAttribute("data-id")),
        statuses: Object.fromEntries(nodes.map((n) => [n.getAttribute("data-id"),
          n.querySelector("circle.status")?.getAttribute("fill") ?? null])),
        states: Object.fromEntries(nodes.map((n) => [n.getAttribute("data-id"),
          n.getAttribute("data-status")])),
        leakedStroke: [...document.querySelectorAll("g.node.leaked .shape")]
          .map((s) => [s.parentNode.getAttribute("data-id"), s.getAttribute("stroke")]),
        edges: [...document.querySelectorAll("path.edge")].map((e) => ({
          source: e.getAttribute("data-source"), target: e.getAttribute("data-target"),
          kind: e.getAttribute("data-kind"), stroke: e.getAttribute("stroke"),
          dashed: e.getAttribute("stroke-dasharray")})),
        groups: [...document.querySelectorAll("g.group")]
          .map((g) => g.getAttribute("data-parallel")),
      };
    }""")


def test_twenty_nodes_with_a_leak_and_a_dry_run(tmp_path: Path) -> None:
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps(SAMPLES), encoding="utf-8")
    html, answer = drawn(tmp_path, twenty_nodes_with_a_leak(), "--dry-run", "--scope", str(samples))
    with chromium_page() as page:
        took = open_graph(page, html)
        seen = shapes(page)
        assert page.errors == []
        ids = [node["id"] for node in answer["nodes"]]
        assert len(ids) == 21 and sorted(seen["ids"]) == sorted(ids)  # each node once
        assert len(seen["edges"]) == len(answer["edges"])
        assert {(e["source"], e["target"], e["kind"]) for e in seen["edges"]} == {
            (e["source"], e["target"], e["kind"]) for e in answer["edges"]}
        assert all(e["dashed"] for e in seen["edges"] if e["kind"] == "data")
        assert not any(e["dashed"] for e in seen["edges"] if e["kind"] != "data")
        # the leak: its node outlined and its bypassing edge drawn red
        assert seen["leakedStroke"] == [["b0-escalate", LEAK_RED]]
        red = [(e["source"], e["target"]) for e in seen["edges"] if e["stroke"] == LEAK_RED]
        assert red == [("b0-classify", "b0-escalate")]
        # every node's dry-run status, in its colour
        states = {node["id"]: node["status"]["state"] for node in answer["nodes"]}
        assert seen["states"] == states
        assert seen["statuses"] == {node_id: STATUS_FILL[state]
                                    for node_id, state in states.items()}
        assert {"ran", "pinned", "synthesized", "skipped"} <= set(states.values())
        assert states["b0-escalate"] == "synthesized" and states["b1-left"] == "skipped"
        assert seen["groups"] == ["b0-fan", "b1-fan"]
        # hovering a node shows its value
        node = next(n for n in answer["nodes"] if n["id"] == "b0-join")
        page.hover('g.node[data-id="b0-join"]')
        tooltip = page.inner_text("div.relavium-graph-tooltip")
        assert tooltip.startswith("b0-join (merge)")
        assert f"value: {node['status']['value']}" in tooltip
        page.hover('g.node[data-id="b0-escalate"]')
        assert "leaked-branch" in page.inner_text("div.relavium-graph-tooltip")
        legend = page.inner_text("div.relavium-graph-legend")
        assert "data edge" in legend and all(state in legend for state in STATUS_FILL)
        shot = tmp_path / "graph-20.png"
        page.screenshot(path=str(shot))
    print(f"\n20-node graph: rendered in {took:.0f} ms; screenshot {shot}")


def test_the_engines_500_node_ceiling(tmp_path: Path) -> None:
    html, answer = drawn(tmp_path, engine_ceiling())
    with chromium_page() as page:
        took = open_graph(page, html)
        seen = shapes(page)
        assert page.errors == []
        assert len(answer["nodes"]) == 500 and sorted(seen["ids"]) == sorted(
            node["id"] for node in answer["nodes"])
        assert len(seen["edges"]) == len(answer["edges"]) == 649
        assert len(seen["groups"]) == 50
        # no two nodes drawn on top of each other
        overlaps = page.evaluate("""() => {
          const boxes = [...document.querySelectorAll("g.node .shape")]
            .map((s) => s.getBoundingClientRect());
          let count = 0;
          const sorted = boxes.sort((a, b) => a.top - b.top);
          for (let i = 0; i < sorted.length; i++)
            for (let j = i + 1; j < sorted.length && sorted[j].top < sorted[i].bottom; j++)
              if (sorted[j].left < sorted[i].right && sorted[i].left < sorted[j].right) count++;
          return count;
        }""")
        assert overlaps == 0
        shot = tmp_path / "graph-500.png"
        page.screenshot(path=str(shot))
        page.mouse.move(700, 450)
        page.mouse.wheel(0, 2000)  # zoom out: the whole graph
        whole = tmp_path / "graph-500-zoomed-out.png"
        page.screenshot(path=str(whole))
    print(f"\n500-node graph: rendered in {took:.0f} ms (bench/graph.py measures it); "
          f"screenshots {shot} {whole}")


API_PAGE = """<!DOCTYPE html><html><body style="margin:0">
<div id="graph" style="position:absolute;inset:0"></div></body></html>"""


def test_the_api_the_webview_uses(tmp_path: Path) -> None:
    _, answer = drawn(tmp_path, twenty_nodes_with_a_leak())
    with chromium_page() as page:
        page.set_content(API_PAGE)
        page.add_script_tag(content=renderer_bundle())
        page.evaluate("""(graph) => {
          window.clicked = [];
          window.ready = 0;
          window.view = RelaviumGraph.render(document.getElementById("graph"), graph, {
            onNodeClick: (id, node) => window.clicked.push([id, node.idRange.start.line]),
            onReady: () => { window.ready += 1; },
          });
        }""", answer)
        assert page.evaluate("RelaviumGraph.graphJsonVersion") == 1
        page.click('g.node[data-id="b0-route"]')
        line = next(n for n in answer["nodes"] if n["id"] == "b0-route")["idRange"]["start"]["line"]
        assert page.evaluate("window.clicked") == [["b0-route", line]]
        page.evaluate('window.view.highlight("b1-join")')
        assert page.locator('g.node[data-id="b1-join"] rect.highlight').count() == 1
        page.evaluate('window.view.setStatuses({"b1-join": {"state": "failed", "error": "e"}})')
        assert page.get_attribute('g.node[data-id="b1-join"]', "data-status") == "failed"
        assert page.locator("circle.status").count() == 1
        # a dry run's own answer: its statuses, never its values (an input node holds secrets)
        page.evaluate("""() => window.view.setStatuses(RelaviumGraph.statusesFromDryRun({
          ok: false, nodes: [{id: "start", type: "input", status: "ran",
                              value: {topic: "x", token: "SECRET"}},
                             {id: "b0-route", status: "failed",
                              error: {code: "timeout", message: "too slow"}}]}))""")
        assert page.get_attribute('g.node[data-id="start"]', "data-status") == "ran"
        page.hover('g.node[data-id="start"]')
        assert "SECRET" not in page.inner_text("div.relavium-graph-tooltip")
        page.hover('g.node[data-id="b0-route"]')
        assert "error: timeout: too slow" in page.inner_text("div.relavium-graph-tooltip")
        smaller = {**answer, "nodes": [n for n in answer["nodes"] if not n["id"].startswith("b1")]}
        page.evaluate("(graph) => window.view.update(graph)", smaller)
        assert page.locator("g.node[data-id]").count() == 11
        assert page.evaluate("window.ready") == 2
        # the highlighted node is gone with its block; the API says what is wrong with bad input
        said = page.evaluate("""() => { try { window.view.update({version: 99, nodes: []}); }
                                     catch (error) { return error.message; } }""")
        assert said == "RelaviumGraph: graph JSON version 99, this renderer reads 1"
        # an empty graph and an edge to an unknown node draw what there is, without an error
        page.evaluate("""() => window.view.update({version: 1, nodes: [], edges: []})""")
        assert page.locator("g.node[data-id]").count() == 0
        assert "NaN" not in page.get_attribute("g.viewport", "transform")
        assert "Infinity" not in page.get_attribute("g.viewport", "transform")
        page.evaluate("""() => window.view.update({version: 1, edges: [
          {source: "a", target: "gone", kind: "data", label: "x"}],
          nodes: [{id: "a", type: "future_type", label: "a"}]})""")
        assert page.locator("g.node[data-id]").count() == 1
        assert page.locator("path.edge").count() == 0
        assert page.errors == []
