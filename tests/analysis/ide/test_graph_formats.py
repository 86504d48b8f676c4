"""The graph as Mermaid, dot and HTML: every id, label and `when` escaped so no character breaks
the diagram (dot checked by Graphviz itself when it is installed), control and data edges apart,
leaks red, statuses coloured; the HTML page self-contained under its content security policy."""

from __future__ import annotations

import base64
import hashlib
import itertools
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from analysis.checks.analyze import analyze
from analysis.ide.graph_formats import renderer_bundle, to_dot, to_html, to_mermaid
from analysis.ide.workflow_graph import WorkflowGraph, result_graph
from tests.analysis.ide.test_workflow_graph import LEAK

# ids and labels with every character that ends a quoted string, opens a shape, a comment, an
# entity, markdown or HTML in one of the formats
NASTY_IDS = ['a"b', "x[1]{2}(3)", "#hash;", "né😀", "<b>&amp;", "back\\slash", "pipe|semi;",
             "`tick`"]
WHEN = '"quoted" #1 [x] | y'


def nasty_workflow() -> str:
    nodes = "\n".join(
        f"    - {{ id: '{node_id}', type: transform, transform: '1', label: 'L {node_id}' }}"
        for node_id in NASTY_IDS[1:])
    edges = "\n".join(f"    - {{ from: '{a}', to: '{b}' }}"
                      for a, b in itertools.pairwise(NASTY_IDS[1:]))
    return f"""\
schema_version: '1.0'
workflow:
  id: 'nasty "graph"'
  nodes:
    - id: '{NASTY_IDS[0]}'
      type: condition
      expression: '"x"'
      branches:
        - {{ when: '{WHEN}', target_node: '{NASTY_IDS[1]}' }}
      default: '{NASTY_IDS[2]}'
{nodes}
  edges:
{edges}
"""


def nasty() -> WorkflowGraph:
    return result_graph(analyze(nasty_workflow(), "nasty.relavium.yaml"))


MERMAID_NODE = re.compile(
    r'^  (n\d+)(\(\["|\["|\{"|\("|\(\("|\[\["|\{\{"|\[/")([^"`<>&]*)'
    r'("\]\)|"\]|"\}|"\)|"\)\)|"\]\]|"\}\}|"/\])$')
MERMAID_EDGE = re.compile(r'^  (n\d+) (-->|-\.->)(\|"([^"`<>&]*)"\|)? (n\d+)$')


def test_mermaid_quotes_and_escapes_every_label() -> None:
    text = to_mermaid(nasty())
    lines = text.splitlines()
    assert lines[0] == "flowchart TD"
    nodes = [MERMAID_NODE.match(line) for line in lines if MERMAID_NODE.match(line)]
    assert len(nodes) == len(NASTY_IDS)
    captions = [match.group(3) for match in nodes]
    assert captions[0] == "a#quot;b"
    assert "L #35;hash; (#35;hash;)" in captions
    assert "L né😀 (né😀)" in captions  # non-ASCII as it is: GitHub's Mermaid reads UTF-8
    assert "L #lt;b#gt;#amp;amp; (#lt;b#gt;#amp;amp;)" in captions
    assert "L #96;tick#96; (#96;tick#96;)" in captions
    edges = [MERMAID_EDGE.match(line) for line in lines if "->" in line]
    assert all(edges) and len(edges) == 2 + len(NASTY_IDS) - 2
    labels = {(m.group(1), m.group(5)): m.group(4) for m in edges if m is not None}
    assert labels[("n0", "n1")] == "#quot;quoted#quot; #35;1 [x] | y"
    assert labels[("n0", "n2")] == "default"
    # every line is a statement Mermaid knows: nothing spilled out of a quoted string
    known = re.compile(r"^(flowchart TD|  (subgraph g\d+\[\".*\"\]|end|    n\d+|n\d+.*|"
                       r"classDef \w+ .*|class n\d+ .*|linkStyle [\d,]+ .*))$")
    assert [line for line in lines if not known.match(line)] == []


def test_mermaid_draws_data_edges_dashed_leaks_red_and_groups_as_subgraphs() -> None:
    text = to_mermaid(result_graph(analyze(LEAK, "w.relavium.yaml")))
    lines = text.splitlines()
    links = [line for line in lines if re.match(r"^  n\d+ -", line)]
    dashed = [index for index, line in enumerate(links) if "-.->" in line]
    assert [links[index] for index in dashed] == [
        '  n1 -.->|"message_template"| n3', '  n7 -.->|"prompt_template"| n8']
    assert f"  linkStyle {dashed[0]} stroke:#dc2626,stroke-width:2px" in lines
    assert "  class n3 leaked" in lines
    assert '  subgraph g0["parallel enrich"]' in lines


def test_dot_escapes_and_graphviz_reads_it() -> None:
    text = to_dot(nasty())
    assert text.startswith('digraph "nasty \\"graph\\"" {')
    assert 'label="L back\\\\slash (back\\\\slash)"' in text
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's `dot` is not installed (apt-get install graphviz): "
                    "the escaping is checked above, not Graphviz's reading of it")
    svg = subprocess.run(["dot", "-Tsvg"], input=text.encode(), capture_output=True,
                         check=True, timeout=60).stdout
    root = ET.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    nodes = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "node"]
    assert len(nodes) == len(NASTY_IDS)
    captions = ["".join(g.find("s:text", ns).itertext()) for g in nodes]  # type: ignore[union-attr]
    # every id, exactly as written, in its node's label
    assert captions == [NASTY_IDS[0]] + [f"L {node_id} ({node_id})" for node_id in NASTY_IDS[1:]]
    edges = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "edge"]
    assert len(edges) == 2 + len(NASTY_IDS) - 2
    texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert WHEN in texts


def test_dot_marks_data_edges_leaks_and_clusters() -> None:
    text = to_dot(result_graph(analyze(LEAK, "w.relavium.yaml")))
    assert ('n1 -> n3 [style=dashed, label="message_template", color="#dc2626"') in text
    assert 'n7 -> n8 [style=dashed, label="prompt_template"];' in text
    assert "subgraph cluster_0 {" in text
    assert 'n3 [label="escalate", shape=hexagon, color="#dc2626", penwidth=3];' in text


def _sha(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_html_is_one_self_contained_page_under_a_strict_policy() -> None:
    page = to_html(nasty(), 'nasty "graph" <x>')
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(scripts) == 2 and scripts[0] == renderer_bundle()
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    assert policy.group(1).startswith("default-src 'none'; script-src ")
    assert all(f"'sha256-{_sha(script)}'" in policy.group(1) for script in scripts)
    assert "<title>nasty &quot;graph&quot; &lt;x&gt; · " not in page  # the title as given
    assert "<title>nasty &quot;graph&quot; &lt;x&gt;</title>" in page
    # nothing remote: no URL anywhere outside the licence banner's words
    assert re.findall(r"\b(?:src|href)\s*=", page) == []
    assert re.findall(r"https?://(?!www\.w3\.org/2000/svg)", page) == []
    data = re.search(r'<script type="application/json" id="relavium-graph-data">(.*?)</script>',
                     page, re.S)
    assert data is not None and "<" not in data.group(1)  # an id cannot close the element
