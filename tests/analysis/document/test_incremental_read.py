"""Reading an edited document with its previous version (`read_yaml(source, previous)`,
`analyze(..., previous=...)`) gives exactly what reading it afresh gives — nodes, spans, values,
problems — whether it re-read one list item or fell back to the whole text (issue 12, target 3)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from analysis.checks.analyze import AnalysisResult, analyze
from analysis.document.model import NodeRef
from analysis.document.model_build import build_workflow
from analysis.document.scalar_offsets import ScalarText
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YamlDocument, YEntry, YMapping, YNode, YScalar, YSequence
from analysis.document.yaml_read import read_yaml
from tests.analysis.large_workflow import large_workflow
from tests.conftest import EXAMPLES, FIXTURES

# Edits that move YAML's structure: indentation, list dashes, line breaks, comments, quotes,
# flow brackets, block scalar headers, anchors, aliases, tags, tabs, document markers.
INSERTS = ["x", " ", "  ", "-", "- ", ":", ": ", "\n", "\n  ", "\n    ", "\n  - ", "#", "\n#c\n",
           '"', "'", "|", "|-", ">", "|2", "{", "}", "[", "]", ",", "? ", "&a ", "*a", "!",
           "!!str ", "\t", "é", "😀", "\n---\n", "\n...\n", "%", "\u2028", "\r",
           "\nk: v\n", "\n  k: v\n", "\n      - z\n", '"a\nb"']


# Top-level entries of every kind after the workflow: an indentless list, an empty value, a
# flow mapping, a block scalar, comments between, a last key of its own (as bench/yamlls.py
# types into).
TOP_LEVEL_TAIL = """\
# after the workflow
extra:
- 1
- [2, 3]
empty:

last: { a: [1, 2] }
tail: |
  block
   text
bench_a: 1
"""


def corpus() -> list[str]:
    texts = [large_workflow(3), large_workflow(2) + TOP_LEVEL_TAIL, large_workflow(1) + "k: 1\n"]
    for folder in (FIXTURES, EXAMPLES):
        for path in sorted(folder.rglob("*.yaml")):
            texts.append(path.read_text(encoding="utf-8"))
    return texts


def shape(document: YamlDocument) -> list[Any]:
    """Everything a reader of the tree can see, in document order."""
    out: list[Any] = [[(d.range, d.rule, d.message, d.severity, d.data, d.related)
                       for d in document.problems]]
    stack = [document.root] if document.root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, YScalar):
            out.append(("scalar", node.span, node.text, repr(node.value), node.style,
                        node.content_start))
        elif isinstance(node, YMapping):
            out.append(("mapping", node.span, node.keys(), sorted(node._index)))
            for entry in reversed(node.entries):
                stack.extend((entry.value, entry.key))
        elif isinstance(node, YSequence):
            out.append(("sequence", node.span, len(node.items)))
            stack.extend(reversed(node.items))
        else:
            assert node is not None
            out.append((type(node).__name__, node.span))
    return out


def edited(text: str, rng: random.Random) -> str:
    # a third of the edits near the end, where the last top-level entries are
    at = rng.randrange(len(text) + 1) if rng.random() < 0.67 else rng.randrange(
        max(0, len(text) - 120), len(text) + 1)
    choice = rng.random()
    if choice < 0.5:
        return text[:at] + rng.choice(INSERTS) + text[at:]
    if choice < 0.8:
        return text[:at] + text[at + rng.randint(1, 3) :]
    return text[:at] + rng.choice(INSERTS) + text[at + 1 :]


@pytest.mark.parametrize("seed", range(4))
def test_an_edited_document_reads_as_if_read_afresh(seed: int) -> None:
    rng = random.Random(seed)
    texts = corpus()
    reused = 0
    for _ in range(1500):
        before = rng.choice(texts)
        previous = read_yaml(SourceText(before))
        text = edited(before, rng)
        incremental = read_yaml(SourceText(text), previous)
        assert shape(incremental) == shape(read_yaml(SourceText(text))), (before, text)
        reused += previous.root is not None and incremental.root is not None and (
            _first_key(incremental) is _first_key(previous))
    assert reused > 200  # the re-read of one item is taken, not only the fallback


def _first_key(document: YamlDocument) -> object:
    root = document.root
    return root.entries[0].key if isinstance(root, YMapping) and root.entries else None


def typed(text: str, anchor: str, typing: str) -> str:
    at = text.index(anchor) + len(anchor)
    return text[:at] + typing + text[at:]


def test_a_keystroke_in_a_large_workflow_reads_only_the_item_it_touched() -> None:
    before = large_workflow(20)
    previous = read_yaml(SourceText(before))
    after = read_yaml(SourceText(typed(before, 'run.outputs["b10-shape"].block + 1', "2")),
                      previous)
    assert isinstance(previous.root, YMapping) and isinstance(after.root, YMapping)
    before_nodes, after_nodes = (_nodes(previous), _nodes(after))
    assert after_nodes[5] is before_nodes[5]  # before the edit: shared
    assert after_nodes[150] is not before_nodes[150]  # after it: moved one character on
    assert after_nodes[150].start == before_nodes[150].start + 1


def _root_body_nodes(document: YamlDocument) -> tuple[YMapping, YMapping, YSequence]:
    root = document.root
    assert isinstance(root, YMapping)
    body = root.get("workflow")
    assert body is not None and isinstance(body.value, YMapping)
    nodes = body.value.get("nodes")
    assert nodes is not None and isinstance(nodes.value, YSequence)
    return root, body.value, nodes.value


def _nodes(document: YamlDocument) -> list[Any]:
    return _root_body_nodes(document)[2].items


@pytest.mark.parametrize(
    ("anchor", "typing"),
    [
        ("agent_ref: writer", "s"),  # unknown-agent
        ('run.outputs["b3-classify"', "x"),  # unknown-output-reference
        ("- id: b4-join\n", "      colour: red\n"),  # unknown-key
        ("    - id: b5-note\n", "  "),  # indents the item into the one before: fallback
        ("transform: 'run.outputs", "\""),  # a syntax error
        ("type: merge", " &m"),  # an anchor
    ],
)
def test_analysing_with_the_previous_version_finds_what_a_fresh_analysis_finds(
    anchor: str, typing: str
) -> None:
    before = large_workflow(8)
    text = typed(before, anchor, typing)
    fresh = analyze(text, "w.relavium.yaml")
    again = analyze(text, "w.relavium.yaml", previous=analyze(before, "w.relavium.yaml"))
    assert again.diagnostics == fresh.diagnostics
    assert again.suppressed == fresh.suppressed


def test_the_examples_exist() -> None:
    assert any(Path(EXAMPLES).rglob("*.yaml"))


def model_shape(result: AnalysisResult, own_source: bool = True) -> list[Any]:
    """Everything a reader of the model and graph can see: declarations with their spans and
    scalar texts (offsets of every decoded index), graph edges, links, ancestors and cycle.
    `own_source`: every scalar text reads `result.source` (not so for an analysis a later one
    without `take_over` took declarations from: those read the later source, same text)."""
    workflow, graph = result.workflow, result.graph
    if workflow is None or graph is None:
        return [None]

    def ref(node_ref: NodeRef | None) -> Any:
        return None if node_ref is None else (node_ref.id, node_ref.span)

    def text(field: ScalarText | None) -> Any:
        if field is None:
            return None
        assert field.source is result.source or not own_source  # not an earlier version's
        offsets = [field.source_span(i, i + 1) for i in range(len(field.value) + 1)]
        return (type(field).__name__, getattr(field, "name", None), field.value,
                field.scalar.span, field.exact, offsets)

    out: list[Any] = [ref(workflow.id_ref), workflow.root is result.document.root]
    out += [("input", d.index, d.mapping.span, ref(d.name_ref), d.type, d.default_references)
            for d in workflow.inputs]
    out += [("context", d.index, d.mapping.span, ref(d.key_ref), text(d.value))
            for d in workflow.context]
    out += [("agent", d.index, d.mapping.span, ref(d.id_ref), d.is_ref, text(d.system_prompt))
            for d in workflow.agents]
    for node in workflow.nodes:
        assert node.expression is None or node.expression.node is node
        out.append(("node", node.index, node.mapping.span, ref(node.id_ref), node.type,
                    text(node.expression), [text(t) for t in node.templates],
                    [(b.index, b.mapping.span, b.handle, ref(b.target)) for b in node.branches],
                    ref(node.default), [ref(m) for m in node.parallel_of], ref(node.agent_ref)))
    out += [("edge", e.index, e.mapping.span, text(e.from_field), e.source, e.handle, ref(e.to))
            for e in workflow.edges]
    out += [("graph", graph.node_ids, [(e.source, e.target, e.kind, e.span) for e in graph.edges],
             graph.successors, graph.predecessors, graph.cycle,
             {node_id: sorted(graph.ancestors(node_id)) for node_id in graph.node_ids},
             [(e.source, e.target) for e in graph.cycle_edges])]
    return out


@pytest.mark.parametrize("seed", range(2))
def test_an_edited_document_analyses_as_if_analysed_afresh(seed: int) -> None:
    """`analyze(text, previous=…)` after random structural edits: the same diagnostics,
    suppressed diagnostics, model and graph as a fresh analysis, whichever parts it reused."""
    rng = random.Random(seed)
    texts = corpus()
    reused_nodes = reused_ancestors = 0
    for _ in range(250):
        before = rng.choice(texts)
        previous = analyze(before, "w.relavium.yaml")
        model_shape(previous)  # fills the lazily computed ancestors and cycle, as rules do
        text = edited(before, rng)
        again = analyze(text, "w.relavium.yaml", previous=previous)
        fresh = analyze(text, "w.relavium.yaml")
        assert again.diagnostics == fresh.diagnostics, (before, text)
        assert again.suppressed == fresh.suppressed, (before, text)
        assert model_shape(again) == model_shape(fresh), (before, text)
        if again.workflow is not None and previous.workflow is not None:
            kept = set(map(id, previous.workflow.nodes))
            reused_nodes += sum(id(node) in kept for node in again.workflow.nodes)
        if again.graph is not None and previous.graph is not None:
            earlier = previous.graph._ancestors
            reused_ancestors += any(found is earlier.get(node_id)
                                    for node_id, found in again.graph._ancestors.items())
    # declarations and graph facts were taken over, not only rebuilt
    assert reused_nodes > 40 and reused_ancestors > 20, (reused_nodes, reused_ancestors)


def test_a_keystroke_takes_over_the_declarations_before_it_and_rebuilds_the_rest() -> None:
    before = large_workflow(6)
    previous = analyze(before)
    text = typed(before, 'run.outputs["b3-shape"].block + 1', "2")
    again = analyze(text, previous=previous)
    assert previous.workflow is not None and again.workflow is not None
    old, new = previous.workflow.nodes, again.workflow.nodes
    assert new[5] is old[5] and new[50] is not old[50]
    assert new[50].mapping.start == old[50].mapping.start + 1
    # a taken-over field reads this version's source: an old one is not kept alive by it
    taken = [field for node in new[:30] for field in node.scalar_texts()]
    assert taken and all(field.source is again.source for field in taken)
    assert again.workflow.edges[0] is not previous.workflow.edges[0]  # after the edit


def test_typing_into_the_last_top_level_key_reads_only_its_entry() -> None:
    before = large_workflow(20) + "bench_a: 1\n"
    previous = read_yaml(SourceText(before))
    after = read_yaml(SourceText(typed(before, "bench_a", "b")), previous)
    assert isinstance(previous.root, YMapping) and isinstance(after.root, YMapping)
    assert after.root.keys() == ["schema_version", "workflow", "bench_ab"]
    assert after.root.entries[1] is previous.root.entries[1]  # the workflow, shared
    assert shape(after) == shape(read_yaml(SourceText(typed(before, "bench_a", "b"))))


@pytest.mark.parametrize(("anchor", "typing"), [
    ("bench_", "\n"),  # splits the entry: the boundary moves
    ("bench_a: 1", "\n- 2"),  # an indentless list after it
    ("bench_a: 1", "\nworkflow: 2"),  # a new entry repeating a key
    ("bench_", "\n..."),  # a document end marker
])
def test_an_edit_that_moves_a_top_level_entry_s_bounds_reads_the_whole_text(
    anchor: str, typing: str
) -> None:
    before = large_workflow(2) + "bench_a: 1\n"
    previous = read_yaml(SourceText(before))
    text = typed(before, anchor, typing)
    after = read_yaml(SourceText(text), previous)
    assert shape(after) == shape(read_yaml(SourceText(text)))
    assert after.root is None or _first_key(after) is not _first_key(previous)


def test_a_top_level_key_edited_into_another_one_s_name_reads_the_whole_text() -> None:
    before = large_workflow(2) + "workflox: 1\n"
    previous = read_yaml(SourceText(before))
    text = before.replace("workflox:", "workflow:")
    after = read_yaml(SourceText(text), previous)
    assert [problem.rule for problem in after.problems] == ["duplicate-key"]
    assert shape(after) == shape(read_yaml(SourceText(text)))


def _with_entry(mapping: YMapping, key: str, value: YNode) -> YMapping:
    entries = [YEntry(entry.key, value) if entry.key.text == key else entry
               for entry in mapping.entries]
    return YMapping(mapping.start, mapping.end, entries,
                    {entry.key.text: entry for entry in entries})


def test_a_declaration_is_taken_over_only_at_the_index_it_was_built_for() -> None:
    """The same item object at another index (not made by the incremental read today, but
    nothing in the model should rely on that) is built again: its index is part of it."""
    document = read_yaml(SourceText(large_workflow(1)))
    earlier = build_workflow(document)
    root, body, nodes = _root_body_nodes(document)
    # a scalar item first: each node item is one index further on, at the same position among
    # the mapping items
    pushed = YSequence(nodes.start, nodes.end, [YScalar(0, 0, "x", "x", None, 0),
                                                *nodes.items])
    moved = _with_entry(root, "workflow", _with_entry(body, "nodes", pushed))
    later = build_workflow(YamlDocument(document.source, moved, []), earlier)
    assert [node.index for node in later.nodes] == list(range(1, len(earlier.nodes) + 1))
    assert [node.id for node in later.nodes] == [node.id for node in earlier.nodes]


def test_graph_facts_are_taken_over_only_while_the_links_stay_the_same() -> None:
    before = large_workflow(3)
    previous = analyze(before)
    assert previous.graph is not None and previous.graph.cycle is None
    earlier = previous.graph.ancestors("b2-pass")
    typing = analyze(typed(before, 'run.outputs["b1-shape"].block + 1', "2"), previous=previous)
    assert typing.graph is not None and typing.graph.ancestors("b2-pass") is earlier
    # one edge item now closes a loop: the cycle and ancestors are computed again
    looped = before.replace("{ from: b1-note, to: b1-pass }", "{ from: b1-note, to: b1-route }")
    again = analyze(looped, previous=previous)
    fresh = analyze(looped)
    assert again.graph is not None and fresh.graph is not None
    assert again.graph.cycle == fresh.graph.cycle is not None
    assert again.graph.ancestors("b2-pass") == fresh.graph.ancestors("b2-pass") != earlier
    assert again.diagnostics == fresh.diagnostics
    # read again from the edited edge item only (the rest shared or moved)
    assert _first_key(again.document) is _first_key(previous.document)
