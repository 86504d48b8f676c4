"""The schema walk after an edit (`analyze(text, previous=…)`) checks again only the lists and
list items whose text changed and takes the previous version's findings for the others
(`analysis.schema.walk.SchemaMemo`, issue 12 target 3): the same diagnostics, in the same order,
as a walk of every item."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from analysis.checks.analyze import AnalysisResult, analyze
from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic
from analysis.schema.lookups import item_of
from analysis.schema.vocabulary import RUN, Spec
from analysis.schema.workflow import WORKFLOW
from tests.analysis.document.test_incremental_read import edited, typed
from tests.analysis.large_workflow import large_workflow

# Items with schema findings of every kind, in every list the walk takes units from, written in
# block and flow style, with non-ASCII text, items that are no mappings, an alias (its span is
# its anchor's) and a list nested in an item (an agent's MCP servers).
INPUTS = """\
  inputs:
    - { name: topic, type: string, required: true }
    - { name: bad name, type: strin, validation: { pattern: '(' } }
    - name: limit
      type: number
      validation: { min: 5, max: 1, min_length: 2 }
      default: { a: 1 }
    - name: key
      type: secret
      default: 'sk-{{ ctx.team }}'
    - name: aliased
      type: number
      validation: *shared
    - plain text
"""
CONTEXT = """\
  context:
    - { key: team, value: 'support-eu' }
    - { key: 'bad key', value: 3, extra: é }
    - [not, a, mapping]
"""
AGENTS = """\
  agents:
    - id: writer
      model: claude-sonnet-4
      provider: anthropic
      system_prompt: You help team {{ ctx.team }}.
    - id: Bad_Agent
      model: ''
      provider: antropic
      temperature: 3
      memory: { type: window }
      mcp_servers:
        - { id: fs, transport: stdio, url: 'http://x' }
        - { id: fs, transport: http, url: 'ftp://user:pw@h' }
        - { ref: shared, command: x }
    - { $ref: '' }
"""
BAD_NODES = """\
    - { id: n-0, type: transform, transform: '1', colour: red }
    - id: Bad_Id
      type: condition
      branches: [{ when: 1 }]
      expression: '  '
    - { id: m-0, type: merge, merge_strategy: custon, expression_type: js }
    - id: agent-é
      type: agent
      agent_ref: writer
      temperature: '0.5'
      output_modalities: []
      retry: { max: 0, backoff: linear, retry_on: [timeout] }
    - { id: unknown-type, type: transfrom, transform: x }
    - 42
    - { id: out, type: output, save_to: '../up' }
"""
BAD_EDGES = """\
    - { from: '', to: Not_Kebab, colour: 1 }
    - { to: start }
    - just-text
"""


def base_text() -> str:
    """Lists longer than `RUN` (nodes, edges) and shorter, with findings of every kind."""
    text = large_workflow(4)
    header_end = text.index("  nodes:\n")
    body = text[:header_end].split("  inputs:\n")[0]
    return (body.replace("  id: generated\n", "  id: generated\n  metadata: &shared { min: 1 }\n")
            + INPUTS + CONTEXT + AGENTS + "  nodes:\n" + BAD_NODES
            + text[header_end + len("  nodes:\n"):].replace("  edges:\n", "  edges:\n" + BAD_EDGES))


# Edits that add and remove schema findings (and undo each other), applied at a random place
# where the text has the first form.
SWAPS = [
    ("type: transform", "type: transfrom"), ("merge_strategy: custom", "merge_strategy: custon"),
    ("gate_type: approval", "gate_type: aproval"), ("provider: anthropic", "provider: antropic"),
    ("type: string", "type: strin"), ("min: 0", "min: 11"), ("to: b", "to: B_"),
    ("agent_ref: writer", "agent_ref: writer\n      colour: red"), ("id: b", "idd: b"),
    ("label: Start", "label: 3"), ("key: team", "key: 'te am'"),
]


def mutated(text: str, rng: random.Random) -> str:
    choice = rng.random()
    if choice < 0.4:
        return edited(text, rng)
    lines = text.splitlines(keepends=True)
    if choice < 0.6:  # a line copied, moved or deleted: items repeat, move, split and merge
        index = rng.randrange(len(lines))
        line = lines.pop(index) if rng.random() < 0.5 else lines[index]
        if rng.random() < 0.8:
            lines.insert(rng.randrange(len(lines) + 1), line)
        return "".join(lines)
    swaps = [(old, new) for old, new in SWAPS if old in text] + \
        [(new, old) for old, new in SWAPS if new in text]
    old, new = rng.choice(swaps)
    starts = [index for index in range(len(text)) if text.startswith(old, index)]
    at = rng.choice(starts)
    return text[:at] + new + text[at + len(old):]


def walked(result: AnalysisResult, earlier: AnalysisResult | None) -> list[Diagnostic]:
    """The schema walk of `result`'s version, in walk order, with `earlier`'s findings or none."""
    assert result.workflow is not None and result.graph is not None
    context = RuleContext(result.source, result.document, result.workflow, result.graph,
                          earlier.schema_memo if earlier is not None else None)
    return context.schema_problems


def reused_units(result: AnalysisResult, previous: AnalysisResult) -> int:
    if result.schema_memo is None or previous.schema_memo is None:
        return 0
    earlier = previous.schema_memo.units
    return sum(earlier.get(key) is found for key, found in result.schema_memo.units.items())


@pytest.mark.parametrize(("seed", "take_over"), [(0, False), (1, False), (2, True), (3, True)])
def test_a_walk_after_edits_finds_what_a_walk_of_every_item_finds(
        seed: int, take_over: bool) -> None:
    """Also when each analysis takes the previous one over (the YAML after the edit moved in
    place, as in the analysis process)."""
    rng = random.Random(seed)
    base = base_text()
    good, previous = base, analyze(base, "w.relavium.yaml")
    assert {d.rule for d in previous.diagnostics} >= {"unknown-key", "missing-field",
                                                      "invalid-value"}
    reused = steps_with_findings = 0
    for step in range(150):
        # a chain of versions, each analysed with the one before (also when that one's YAML
        # did not read: then edited on from the last that did), back to the base now and then
        text = base if step % 30 == 29 else mutated(good, rng)
        again = analyze(text, "w.relavium.yaml", previous=previous, take_over=take_over)
        fresh = analyze(text, "w.relavium.yaml")
        assert again.diagnostics == fresh.diagnostics, (previous.source.text, text)
        assert again.suppressed == fresh.suppressed, (previous.source.text, text)
        if again.workflow is not None:
            good = text
            assert walked(again, previous) == walked(again, None), (previous.source.text, text)
            steps_with_findings += any(d.rule == "unknown-key" for d in again.diagnostics)
        reused += reused_units(again, previous)
        previous = again
    assert steps_with_findings > 50
    assert reused > 150 * 40  # findings were taken over, not only found again


def _item(field: str) -> Spec:
    spec = item_of(WORKFLOW.fields[field])
    assert spec is not None
    return spec


UNITS = {"input": _item("inputs"), "agent": _item("agents"), "node": _item("nodes"),
         "edge": _item("edges"), "context": _item("context")}


@contextmanager
def counted_checks(*names: str) -> Iterator[Counter[str]]:
    """How many times the check of each named kind of list item runs."""
    counts: Counter[str] = Counter()
    with pytest.MonkeyPatch.context() as patch:
        for name in names:
            spec = UNITS[name]

            def counting(walk: Any, node: Any, path: str, name: str = name,
                         check: Callable[..., None] = spec.check) -> None:
                counts[name] += 1
                check(walk, node, path)
            patch.setattr(spec, "check", counting)
        yield counts


@pytest.mark.parametrize(("anchor", "typing", "checked"), [
    ('run.outputs["b10-shape"].block + 1', "2", {"node": 1}),  # a keystroke in a node
    # a line into a node (later lines move)
    ("- id: b12-join\n", "      colour: red\n", {"node": 1}),
    ('run.outputs["b3-classify"].score > (', "\n        ", {"node": 1}),  # a line break
    # an edge's run of items (edges are not units of their own: as quick to check again)
    ("{ from: b7-fan, to: b7-le", "x", {"edge": RUN}),
    ("{ name: topic, type: string", ", description: é", {"input": 1}),
    ("{ key: team, value: 'support", "-fr", {"context": 1}),
    ("system_prompt: You help", " the", {"agent": 1}),
])
def test_after_an_edit_only_the_item_it_changed_is_checked_again(
        anchor: str, typing: str, checked: dict[str, int]) -> None:
    before = large_workflow(20)
    previous = analyze(before)
    with counted_checks(*UNITS) as counts:
        again = analyze(typed(before, anchor, typing), previous=previous)
    assert counts == checked
    with counted_checks(*UNITS) as counts:
        fresh = analyze(typed(before, anchor, typing))
    # the counter counts
    assert counts == {"node": 201, "edge": 240, "input": 2, "agent": 1, "context": 1}
    assert again.diagnostics == fresh.diagnostics


def test_an_item_at_another_index_is_checked_again_as_its_messages_name_the_index() -> None:
    before = base_text()
    previous = analyze(before)
    first_bad = BAD_NODES.splitlines(keepends=True)[0]
    with counted_checks("node") as counts:
        again = analyze(before.replace(first_bad, first_bad + first_bad, 1), previous=previous)
    # the copy and every item after it (all but the first item: the scalar `42` is an item
    # and not a node)
    assert again.workflow is not None and counts == {"node": len(again.workflow.nodes)}
    assert again.diagnostics == analyze(again.source.text).diagnostics


def test_an_edit_before_the_document_decides_again_what_tags_in_unchanged_items_mean() -> None:
    """`%TAG !! …` rebinds `!!int` in every item: the items' findings are not taken over."""
    body = base_text().replace("min: 5, max: 1", "min: !!int 5, max: 1")
    rebound = "%TAG !! tag:example.com,2000:\n---\n" + body
    core = "%TAG !! tag:yaml.org,2002:\n---\n" + body
    for before, after in ((rebound, core), (core, rebound)):
        again = analyze(after, previous=analyze(before))
        fresh = analyze(after)
        assert again.diagnostics == fresh.diagnostics
    assert any("min must be a number" in d.message for d in analyze(rebound).diagnostics)


def test_an_item_s_text_at_another_column_is_checked_again() -> None:
    """`|2` counts the block's indentation from the item's column: the same item text (from its
    first key on) holds another value once more spaces follow its dash."""
    nodes, edges = large_workflow(1).split("  edges:\n")
    narrow = nodes + "    - type: |2\n          transfor\n  edges:\n" + edges
    wide = nodes + "    -   type: |2\n          transfor\n  edges:\n" + edges
    for before, after in ((narrow, wide), (wide, narrow)):
        again = analyze(after, previous=analyze(before))
        fresh = analyze(after)
        assert again.diagnostics == fresh.diagnostics
    assert {"  transfor\n", "transfor\n"} == {
        next(d.message.split("'")[1] for d in analyze(text).diagnostics
             if d.message.startswith("workflow.nodes[11].type")) for text in (narrow, wide)}


def test_runs_of_the_same_text_keep_their_own_item_paths() -> None:
    """Two runs of `RUN` identical items: each one's findings name its own items."""
    nodes, edges = large_workflow(1).split("  edges:\n")
    text = nodes + "    - { id: x, type: bogus }\n" * (3 * RUN) + "  edges:\n" + edges
    previous = analyze(text)
    after = typed(text, 'run.outputs["b0-shape"].block + 1', "2")  # in the first run
    assert analyze(after, previous=previous).diagnostics == analyze(after).diagnostics


def test_a_version_whose_yaml_does_not_read_keeps_the_previous_findings_for_the_next() -> None:
    before = large_workflow(20)
    previous = analyze(before)
    broken = analyze(typed(before, 'run.outputs["b10-shape"].block + 1', "'\n  - ["),
                     previous=previous)
    assert broken.workflow is None and broken.schema_memo is previous.schema_memo
    with counted_checks("node", "edge") as counts:
        analyze(typed(before, 'run.outputs["b10-shape"].block + 1', "2"), previous=broken)
    assert counts == {"node": 1}


@pytest.mark.parametrize("where", ["validation", "schema_version"])
def test_an_alias_where_the_schema_expects_a_value_is_left_to_the_alias_diagnostic(
        where: str) -> None:
    """An alias is reported as such; the walk skips it as it does in lists and mappings (it
    asserted on it: internal-error in unknown-key, missing-field and invalid-value)."""
    text = base_text()
    if where == "schema_version":
        text = text.replace("schema_version: '1.0'", "schema_version: *shared", 1)
    rules = Counter(d.rule for d in analyze(text).diagnostics)
    assert rules["internal-error"] == 0 and rules["yaml-syntax"] >= 1



def test_an_analysis_given_up_to_a_take_over_still_lends_its_findings() -> None:
    """Its tree went to the next version, but its memo holds texts and findings, not nodes."""
    before = large_workflow(20)
    first = analyze(before)
    analyze(typed(before, 'run.outputs["b10-shape"].block + 1', "2"), previous=first,
            take_over=True)
    assert first.given_up
    after = typed(before, 'run.outputs["b12-shape"].block + 1', "3")
    with counted_checks("node") as counts:
        again = analyze(after, previous=first)
    assert counts == {"node": 1} and again.diagnostics == analyze(after).diagnostics
