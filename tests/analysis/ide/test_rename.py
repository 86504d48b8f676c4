"""Renaming a node id: every place, valid YAML and JavaScript afterwards, clear refusals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.checks.analyze import analyze
from analysis.ide.navigation import SymbolKind, symbol_index
from analysis.ide.rename import RenameRefused, plan_rename, rename_target
from tests.conftest import EXAMPLES
from tests.operations import lines_executed

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")


def renamed(text: str, at: str, new_id: str, skip: int = 0) -> str:
    workflow = analyze(text).workflow
    assert workflow is not None
    index = symbol_index(workflow)
    occurrence = rename_target(index, text.index(at) + skip)
    result = text
    for start, end, new_text in reversed(plan_rename(index, occurrence, new_id)):
        result = result[:start] + new_text + result[end:]
    return result


def errors(text: str) -> list[str]:
    return [d.rule for d in analyze(text).diagnostics if d.severity == 1]


def test_the_example_renames_cleanly() -> None:
    result = renamed(EXAMPLE, "- id: history", "past-tickets", skip=6)
    assert errors(result) == []
    assert "parallel_of: [past-tickets, sentiment]" in result
    assert "{ from: enrich, to: past-tickets }" in result
    assert "{ from: past-tickets, to: combine }" in result
    assert "history" not in result


def test_dot_reads_become_brackets_in_each_scalar_style() -> None:
    base = EXAMPLE.replace(
        "    - { id: done,",
        "    - id: plain\n      type: transform\n      transform: run.outputs.history\n"
        "    - id: double\n      type: transform\n      transform: \"run?.outputs?.history\"\n"
        "    - id: literal\n      type: transform\n      transform: |\n"
        "        run.outputs\n          .history\n"
        "    - { id: done,",
    ).replace("{ from: draft-reply, to: done }",
              "{ from: draft-reply, to: done }\n    - { from: history, to: plain }\n"
              "    - { from: history, to: double }\n    - { from: history, to: literal }")
    assert errors(base) == []
    result = renamed(base, "- id: history", "old-tickets", skip=6)
    assert "transform: run.outputs[\"old-tickets\"]\n" in result
    assert "transform: \"run?.outputs?.['old-tickets']\"\n" in result
    assert "        run.outputs\n          [\"old-tickets\"]\n" in result
    assert "transform: '({ topic: run.outputs.classify.topic" in result
    assert errors(result) == []


def test_an_identifier_id_keeps_the_dot_form() -> None:
    result = renamed(EXAMPLE, "- id: classify", "triage", skip=6)
    assert "run.outputs.triage.topic" in result and 'run.outputs["triage"]' in result


def test_a_numeric_looking_id_is_quoted() -> None:
    result = renamed(EXAMPLE, "- id: history", "42", skip=6)
    assert "- id: '42'\n" in result
    assert "{ from: enrich, to: '42' }" in result
    assert "parallel_of: ['42', sentiment]" in result
    assert errors(result) == []


@pytest.mark.parametrize(
    ("new_id", "message"),
    [
        ("Past_Tickets", "'Past_Tickets' is not a valid node id: use kebab-case (lowercase "
                         "letters and digits joined by single hyphens), e.g. 'past-tickets'"),
        ("sentiment", "a node with id 'sentiment' already exists (line 64); pick another id"),
        ("", "'' is not a valid node id"),
    ],
)
def test_refusals(new_id: str, message: str) -> None:
    with pytest.raises(RenameRefused) as refused:
        renamed(EXAMPLE, "- id: history", new_id, skip=6)
    assert str(refused.value).startswith(message)


def test_refuses_what_is_not_a_declared_node() -> None:
    with pytest.raises(RenameRefused, match="only node and agent ids can be renamed"):
        renamed(EXAMPLE, "inputs.severity_floor", "x", skip=8)
    dangling = EXAMPLE.replace("{ from: escalate, to: done }", "{ from: escalate, to: donne }")
    with pytest.raises(RenameRefused, match="no node has the id 'donne'"):
        renamed(dangling, "to: donne", "done-2", skip=5)


def test_refuses_a_template_dot_read_that_would_need_brackets() -> None:
    text = EXAMPLE.replace("Urgent {{ run.outputs[\"topic\"] }}",
                           "Urgent {{ run.outputs.topic }}")
    with pytest.raises(RenameRefused, match="would add a data edge"):
        renamed(text, "- id: topic", "topic-2", skip=6)


def test_refuses_brackets_in_a_plain_flow_scalar() -> None:
    text = EXAMPLE.replace(
        "    - id: history\n      type: transform\n      transform: '({ topic: run.outputs."
        "classify.topic, tier: inputs.customer_tier ?? \"free\" })'",
        "    - { id: history, type: transform, transform: run.outputs.classify.topic }",
    )
    assert errors(text) == []
    with pytest.raises(RenameRefused, match=r"inside \{ … \} or \[ … \]"):
        renamed(text, "- id: classify", "classify-2", skip=6)


@settings(max_examples=40, deadline=None)
@given(st.from_regex(r"[a-z0-9]{1,6}(-[a-z0-9]{1,4}){0,2}", fullmatch=True))
def test_any_free_kebab_id_renames_to_a_clean_file(new_id: str) -> None:
    workflow = analyze(EXAMPLE).workflow
    assert workflow is not None
    if new_id in workflow.nodes_by_id or new_id == "classify":
        return
    result = renamed(EXAMPLE, "- id: classify", new_id, skip=6)
    assert errors(result) == []
    renamed_workflow = analyze(result).workflow
    assert renamed_workflow is not None and renamed_workflow.node(new_id) is not None


def test_refuses_a_place_that_cannot_be_mapped_exactly() -> None:
    # an escaped line break followed by a blank line: the offset re-scan does not reproduce it
    text = EXAMPLE.replace(
        "transform: '({ topic: run.outputs.classify.topic, tier: inputs.customer_tier ?? "
        "\"free\" })'",
        'transform: "({ topic: run.outputs.classify.topic, \\\n\n        tier: '
        'inputs.customer_tier ?? \\"free\\" })"')
    workflow = analyze(text).workflow
    assert workflow is not None
    index = symbol_index(workflow)
    inexact = [o for o in index.references(SymbolKind.NODE, "classify") if not o.exact]
    assert [o.reader for o in inexact] == ["history"]
    assert index.at(inexact[0].start) is None or index.at(inexact[0].start).exact
    with pytest.raises(RenameRefused, match="on line 63 is written in a way the server cannot"):
        renamed(text, "- id: classify", "triage", skip=6)


def dot_readers(count: int) -> str:
    readers = "".join(
        f"    - id: r{i}\n      type: transform\n      transform: run.outputs.src.n + {i}\n"
        for i in range(count)
    )
    edges = "".join(f"    - {{ from: src, to: r{i} }}\n" for i in range(count))
    return (
        "schema_version: '1.0'\nworkflow:\n  id: w\n  nodes:\n    - { id: start, type: input }\n"
        "    - { id: src, type: transform, transform: '({ n: 1 })' }\n"
        f"{readers}  edges:\n    - {{ from: start, to: src }}\n{edges}"
    )


def test_renaming_many_dot_reads_costs_linear_work() -> None:
    """Each plain-scalar read that needs the bracket form walked the document down to its place
    again: n reads in a list of n nodes cost n². 10x both: about 10x the work."""
    assert "run.outputs[\"src-b\"].n + 2" in renamed(dot_readers(3), "id: src", "src-b", skip=4)

    def cost(count: int) -> int:
        workflow = analyze(dot_readers(count)).workflow
        assert workflow is not None
        index = symbol_index(workflow)
        occurrence = rename_target(index, dot_readers(count).index("id: src") + 4)
        return lines_executed(lambda: plan_rename(index, occurrence, "src-b"),
                              "analysis/ide/rename.py")

    small, large = cost(60), cost(600)
    assert large <= small * 12, (small, large)
