"""`analyze(text, previous=…, take_over=True)`: the caller gives `previous` up (the analysis
process's `KeptAnalyses` does), so the incremental read moves the nodes after the edit in place
instead of copying them, and the model takes over every declaration whose item it shares. The
result is what a fresh analysis gives; stopped or failing after the move, `previous` is again
exactly what it was; without `take_over`, `previous` stays as it was (issue 12, target 3)."""

from __future__ import annotations

import gc
import random
from collections.abc import Callable
from typing import Any

import pytest

import analysis.checks.analyze as analyze_module
from analysis.checks.analyze import AnalysisResult, AnalysisStopped, analyze
from analysis.document.model import Workflow
from analysis.document.scalar_offsets import ScalarText
from tests.analysis.checks.test_collector import collector  # noqa: F401 (a fixture)
from tests.analysis.document.test_incremental_read import corpus, edited, model_shape, shape, typed
from tests.analysis.large_workflow import large_workflow

PATH = "w.relavium.yaml"
# typed into the transform of a node in the middle: the nodes and edges after it move
MIDDLE = 'run.outputs["b3-shape"].block + 1'


def texts_of(workflow: Workflow) -> list[ScalarText]:
    return [text for decl in (*workflow.inputs, *workflow.context, *workflow.agents,
                              *workflow.nodes, *workflow.edges) for text in decl.scalar_texts()]


def view(result: AnalysisResult, own_source: bool = True) -> list[Any]:
    """Everything a reader of `result` can see: the tree, the spans of its scalars, the model
    and graph (every scalar text's offsets, document → decoded index too) and the
    diagnostics."""
    out = [shape(result.document), result.document.scalar_spans,
           model_shape(result, own_source), result.diagnostics, result.suppressed]
    if result.workflow is not None:
        out.append([[text.decoded_index_of(offset)
                     for offset in range(text.scalar.start, text.scalar.end + 1)]
                    for text in texts_of(result.workflow)])
    return out


def edit_offset(before: str, after: str) -> int:
    return next((i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b),
                min(len(before), len(after)))


def typed_anywhere(text: str, rng: random.Random) -> str:
    """A keystroke: a character typed or deleted anywhere (mostly in values, which keeps the
    YAML readable more often than `edited`'s structural edits)."""
    at = rng.randrange(len(text))
    if rng.random() < 0.3:
        return text[:at] + text[at + 1 :]
    return text[:at] + rng.choice("az09_ é") + text[at:]


@pytest.mark.parametrize("seed", range(2))
def test_an_analysis_that_takes_over_the_previous_one_is_a_fresh_analysis(seed: int) -> None:
    """Random structural edits, each building on the analysis before it (as a typing burst
    does): the same tree, model, graph, offsets and diagnostics as a fresh analysis, and the
    declarations after an edit that changed the length are the previous analysis's own (moved,
    not rebuilt)."""
    rng = random.Random(seed)
    # not the 32 KiB expression fixture: `view` checks every offset of every scalar, which on it
    # alone outlasts the timeout (which texts a seed picks moves as fixtures are added)
    texts = [text for text in corpus() if len(text) < 16 * 1024]
    previous: AnalysisResult | None = None
    taken_after_edit = 0
    for step in range(250):
        if previous is None or step % 10 == 0:
            # half the chains in the generated workflows (many items after most edits)
            previous = analyze(rng.choice(texts[:3] if rng.random() < 0.5 else texts), PATH)
        before = previous.source.text
        view(previous)  # computes every cached offset before the move: they must stay right
        earlier = set() if previous.workflow is None else {
            id(decl) for decl in (*previous.workflow.nodes, *previous.workflow.edges)}
        text = edited(before, rng) if rng.random() < 0.5 else typed_anywhere(before, rng)
        again = analyze(text, PATH, previous=previous, take_over=True)
        assert view(again) == view(analyze(text, PATH)), (before, text)
        if again.workflow is not None and len(text) != len(before):
            edit = edit_offset(before, text)
            taken_after_edit += sum(id(decl) in earlier and decl.mapping.start > edit
                                    for decl in (*again.workflow.nodes, *again.workflow.edges))
        previous = again
    assert taken_after_edit > 200, taken_after_edit  # 0 when the nodes after are copied


def test_a_keystroke_takes_over_every_declaration_but_the_edited_one() -> None:
    before = large_workflow(6)
    previous = analyze(before, PATH)
    assert previous.workflow is not None
    old_nodes, old_edges = list(previous.workflow.nodes), list(previous.workflow.edges)
    again = analyze(typed(before, MIDDLE, "2"), PATH, previous=previous, take_over=True)
    assert again.workflow is not None
    new = again.workflow.nodes
    edited_node = next(i for i, node in enumerate(old_nodes) if node is not new[i])
    assert new[edited_node].id == "b3-note"
    assert all(new[i] is old_nodes[i] for i in range(len(new)) if i != edited_node)
    assert again.workflow.edges == old_edges  # the same objects, moved one character on
    assert previous.given_up


def test_a_keystroke_takes_over_the_graph_s_edges_and_links_while_they_link_the_same_ids(
) -> None:
    before = large_workflow(6)
    previous = analyze(before, PATH)
    assert previous.graph is not None
    old_edges, old_links = list(previous.graph.edges), previous.graph.successors
    text = typed(before, MIDDLE, "2")
    again = analyze(text, PATH, previous=previous, take_over=True)
    assert again.graph is not None
    assert again.graph.successors is old_links
    assert again.graph.edges == old_edges and all(
        new is old for new, old in zip(again.graph.edges, old_edges, strict=True))
    # an edge item edited into closing a loop: its edges are made again, and the links
    again = analyze(text.replace("{ from: b1-note, to: b1-pass }",
                                 "{ from: b1-note, to: b1-route }"),
                    PATH, previous=again, take_over=True)
    assert again.graph is not None and again.graph.successors is not old_links
    assert view(again) == view(analyze(again.source.text, PATH))
    assert again.graph.cycle is not None
    # the agent's system prompt now reads an output: every node of that agent, taken over,
    # has a data edge from it
    text = typed(again.source.text, "You help team {{ ctx.team }}", ' {{ run.outputs["start"] }}')
    again = analyze(text, PATH, previous=again, take_over=True)
    assert view(again) == view(analyze(text, PATH))
    assert again.graph is not None and "start" in again.graph.predecessors["b5-classify"]


def stopping_at(call: int, at_stop: Callable[[], None]) -> Callable[[], bool]:
    """A `should_stop` that answers True at its `call`-th question, after calling `at_stop`."""
    asked = [0]

    def stop() -> bool:
        asked[0] += 1
        if asked[0] < call:
            return False
        at_stop()
        return True

    return stop


def test_an_analysis_stopped_after_the_move_gives_the_previous_one_back_exactly() -> None:
    """Stopped at each of its checkpoints: the tree had moved (from the second on) and the
    model was being taken over; afterwards every span, offset and source of `previous` is
    what it was — also the offsets cached while it was moved — and the next version builds on
    it."""
    before = large_workflow(6)
    text = typed(before, MIDDLE, "2")
    seen = view(analyze(before, PATH))
    asked: list[int] = []
    analyze(text, PATH, lambda: bool(asked.append(1)), analyze(before, PATH), take_over=True)
    moved = []
    for call in range(1, len(asked) + 1):
        previous = analyze(before, PATH)  # nothing cached yet

        def at_stop(previous: AnalysisResult = previous) -> None:
            moved.append(shape(previous.document) != seen[0])
            assert previous.workflow is not None
            for field in texts_of(previous.workflow):
                if field.source is not previous.source:  # taken over by the new version:
                    field.source_span(0, len(field.value))  # read there (as rules do)

        with pytest.raises(AnalysisStopped):
            analyze(text, PATH, stopping_at(call, at_stop), previous, take_over=True)
        assert view(previous) == seen, call
        assert not previous.given_up
        again = analyze(text, PATH, previous=previous, take_over=True)
        assert view(again) == view(analyze(text, PATH))
    assert moved == [False] + [True] * (len(asked) - 1)


def test_an_analysis_that_fails_after_the_move_gives_the_previous_one_back_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = large_workflow(6)
    previous = analyze(before, PATH)
    seen = view(previous)

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(analyze_module, "build_graph", broken)
    with pytest.raises(RuntimeError):
        analyze(typed(before, MIDDLE, "2"), PATH, previous=previous, take_over=True)
    assert view(previous) == seen and not previous.given_up


@pytest.mark.parametrize(("anchor", "typing"), [
    ("agent_ref: writer", ": ["),  # a syntax error: the whole text is read, no model
    ("label: Start }", "\n    - { id: extra, type: input }"),  # a new item: read whole
])
def test_an_analysis_that_moves_nothing_leaves_the_previous_one_valid(
    anchor: str, typing: str
) -> None:
    """What the analysis process answers questions from when the new text has no model: it
    must not be given up."""
    before = large_workflow(3)
    previous = analyze(before, PATH)
    seen = view(previous)
    text = typed(before, anchor, typing)
    again = analyze(text, PATH, previous=previous, take_over=True)
    assert view(again) == view(analyze(text, PATH))
    assert view(previous) == seen and not previous.given_up


def test_a_given_up_analysis_is_not_built_on_again() -> None:
    before = large_workflow(3)
    previous = analyze(before, PATH)
    analyze(typed(before, MIDDLE.replace("b3", "b1"), "2"), PATH, previous=previous,
            take_over=True)
    assert previous.given_up
    text = typed(before, MIDDLE.replace("b3", "b1"), "7")
    again = analyze(text, PATH, previous=previous, take_over=True)
    assert view(again) == view(analyze(text, PATH))
    assert again.document.root is not None and previous.document.root is not None
    assert shape(again.document)[1:3] == shape(analyze(text, PATH).document)[1:3]
    assert again.workflow is not None and previous.workflow is not None
    assert not set(map(id, again.workflow.nodes)) & set(map(id, previous.workflow.nodes))


@pytest.mark.parametrize("seed", range(2))
def test_without_take_over_the_previous_analysis_stays_as_it_was(seed: int) -> None:
    """The server's own analyses (request handlers read the previous snapshot meanwhile):
    whatever the edit, every span and offset of `previous` is unchanged, and it is not given
    up."""
    rng = random.Random(seed)
    texts = corpus()
    for _ in range(60):
        previous = analyze(rng.choice(texts), PATH)
        seen = view(previous)
        analyze(edited(previous.source.text, rng), PATH, previous=previous)
        assert view(previous, own_source=False) == seen
        assert not previous.given_up


@pytest.mark.usefixtures("collector")
def test_a_burst_of_analyses_taking_over_leaves_no_cyclic_garbage() -> None:
    """Given-up results, put-back ones and the graph's record of what each declaration made
    all go by reference counting (the collector's passes were the latency spikes)."""
    text = large_workflow(3)
    previous = analyze(text, PATH)
    analyze(typed(text, MIDDLE.replace("b3", "b1"), "0"), PATH)  # warm the caches
    gc.collect()
    gc.disable()  # a collection in the middle would free the garbage this counts
    for keystroke in range(6):
        text = typed(text, MIDDLE.replace("b3", "b1"), str(keystroke))
        if keystroke % 2:
            with pytest.raises(AnalysisStopped):
                analyze(text, PATH, stopping_at(5, lambda: None), previous, take_over=True)
        else:
            previous = analyze(text, PATH, previous=previous, take_over=True)
    del previous
    assert gc.collect() == 0
