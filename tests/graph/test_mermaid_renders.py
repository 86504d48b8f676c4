"""The Mermaid output read by Mermaid itself (the library GitHub renders ```mermaid blocks
with, a devDependency of editors/graph), in headless Chromium: ids, labels and `when`s with
quotes, brackets, `#`, entities and non-ASCII draw every node with its text, and the 500-node
graph renders."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.checks.analyze import analyze
from analysis.ide.graph_formats import to_mermaid
from analysis.ide.workflow_graph import result_graph
from tests.analysis.ide.test_graph_formats import NASTY_IDS, WHEN, nasty
from tests.analysis.ide.test_workflow_graph import LEAK
from tests.conftest import REPO_ROOT
from tests.graph.browser import chromium_page, engine_ceiling, missing

MERMAID = REPO_ROOT / "editors" / "graph" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"

pytestmark = [
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
    pytest.mark.skipif(not MERMAID.exists(),
                       reason="Mermaid is not installed: `npm ci` in editors/graph"),
]


def rendered(page: object, text: str) -> dict[str, object]:
    return page.evaluate("""async (text) => {
      mermaid.initialize({ startOnLoad: false, securityLevel: "strict", maxEdges: 5000,
                           maxTextSize: 1000000 });
      try {
        const { svg } = await mermaid.render("g" + Math.random().toString(36).slice(2), text);
        document.body.innerHTML = svg;
        return { ok: true, nodes: [...document.querySelectorAll("g.node")].map(
          (n) => n.textContent.trim()),
          edgeLabels: [...document.querySelectorAll(".edgeLabel")].map((l) => l.textContent),
          redLinks: [...document.querySelectorAll("path")].filter(
            (p) => (p.getAttribute("style") || "").includes("stroke:#dc2626")).length,
          dashedLinks: document.querySelectorAll("path.edge-pattern-dotted").length,
          links: document.querySelectorAll("path.flowchart-link").length };
      } catch (error) { return { ok: false, error: String(error) }; }
    }""", text)  # type: ignore[attr-defined, no-any-return]


def test_every_awkward_id_and_when_survives_mermaid(tmp_path: Path) -> None:
    with chromium_page() as page:
        page.set_content("<!DOCTYPE html><html><body></body></html>")
        page.add_script_tag(path=str(MERMAID))
        answer = rendered(page, to_mermaid(nasty()))
        assert answer["ok"], answer.get("error")
        assert answer["nodes"] == [NASTY_IDS[0]] + [
            f"L {node_id} ({node_id})" for node_id in NASTY_IDS[1:]]
        assert WHEN in answer["edgeLabels"]
        page.screenshot(path=str(tmp_path / "mermaid-nasty.png"))
    print(f"\nscreenshot {tmp_path / 'mermaid-nasty.png'}")


def test_the_500_node_graph_renders_in_mermaid() -> None:
    model = result_graph(analyze(engine_ceiling(), "w.relavium.yaml"))
    with chromium_page() as page:
        page.set_content("<!DOCTYPE html><html><body></body></html>")
        page.add_script_tag(path=str(MERMAID))
        answer = rendered(page, to_mermaid(model))
        assert answer["ok"], answer.get("error")
        assert len(answer["nodes"]) == 500


def test_the_leak_is_the_one_red_link_and_data_edges_are_dashed() -> None:
    text = to_mermaid(result_graph(analyze(LEAK, "w.relavium.yaml")))
    with chromium_page() as page:
        page.set_content("<!DOCTYPE html><html><body></body></html>")
        page.add_script_tag(path=str(MERMAID))
        answer = rendered(page, text)
    assert answer["ok"], answer.get("error")
    assert answer["redLinks"] == 1  # linkStyle counted the links as Mermaid does
    assert (answer["dashedLinks"], answer["links"]) == (2, 13)
