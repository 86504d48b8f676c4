"""Expression facts are computed once per expression per analysis, shared by every rule, and
reused across versions from a cache bounded in bytes (issue 12, target 1)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from analysis.checks.analyze import analyze
from analysis.checks.expression_sites import syntax_problem
from analysis.document.expressions import analyze_expression
from analysis.document.templates import _engine_reads
from analysis.document.text_cache import PER_ITEM_BYTES, TextCache, estimated_bytes
from tests.analysis.large_workflow import large_workflow


def test_least_recently_used_entries_go_once_the_bound_is_passed() -> None:
    computed: list[str] = []

    def compute(text: str) -> tuple[str, ...]:
        computed.append(text)
        return (text,)

    cost = estimated_bytes("a" * 100, ("x",))
    cache = TextCache(compute, max_bytes=3 * cost)
    for text in ("a" * 100, "b" * 100, "c" * 100, "a" * 100, "d" * 100):
        cache(text)  # "a" was used again, so "b" is the one to go when "d" arrives
    assert cache.held_bytes <= 3 * cost
    cache("a" * 100)
    cache("b" * 100)
    assert computed == ["a" * 100, "b" * 100, "c" * 100, "d" * 100, "b" * 100]


def test_an_entry_larger_than_the_bound_is_returned_but_not_kept() -> None:
    cache = TextCache(lambda text: tuple(text), max_bytes=10 * PER_ITEM_BYTES)
    assert cache("x" * 50) == tuple("x" * 50)
    assert cache.held_bytes == 0


def test_map_answers_and_counts_as_one_call_per_text() -> None:
    computed: list[str] = []

    def compute(text: str) -> tuple[str, ...]:
        computed.append(text)
        return (text.upper(),)

    cost = estimated_bytes("a" * 100, ("x",))
    one_by_one = TextCache(compute, max_bytes=3 * cost)
    batched = TextCache(compute, max_bytes=3 * cost)
    texts = ["a" * 100, "b" * 100, "a" * 100, "c" * 100]
    expected = [one_by_one(text) for text in texts]
    computed.clear()
    assert batched.map(texts) == expected
    assert computed == ["a" * 100, "b" * 100, "c" * 100]  # a repeated miss is computed once
    assert (batched.calls, batched.misses) == (one_by_one.calls, one_by_one.misses) == (4, 3)
    # Hits count as uses: "b" is the least recently used once "a" and "c" are looked up again,
    # so it is the one to go when "d" arrives.
    computed.clear()
    assert batched.map(["c" * 100, "a" * 100, "d" * 100]) == [("C" * 100,), ("A" * 100,),
                                                              ("D" * 100,)]
    batched.map(["a" * 100, "c" * 100, "b" * 100])
    assert computed == ["d" * 100, "b" * 100]
    assert batched.held_bytes <= 3 * cost


@pytest.fixture
def fresh_caches() -> Iterator[None]:
    analyze_expression.clear()
    syntax_problem.clear()
    yield
    analyze_expression.clear()


def counts() -> tuple[int, int]:
    return analyze_expression.calls, analyze_expression.misses


def test_each_expression_is_analysed_once_per_analysis(fresh_caches: None) -> None:
    text = large_workflow(20)
    calls, misses = counts()
    result = analyze(text)
    assert result.workflow is not None
    expressions = [field.value for field in result.workflow.expression_fields()]
    # one look-up per expression field, not one per rule that reads expression facts
    assert analyze_expression.calls - calls == len(expressions)
    assert analyze_expression.misses - misses == len(set(expressions))
    calls, misses = counts()
    analyze(text)  # the next version: every expression's facts are reused
    assert counts() == (calls + len(expressions), misses)


def test_a_keystroke_reanalyses_only_the_expression_it_touched(fresh_caches: None) -> None:
    text = large_workflow(20)
    analyze(text)
    _, misses = counts()
    edited = text.replace("score * 2 }", "score * 3 }", 1)  # one transform of one block
    assert edited != text
    analyze(edited)
    assert analyze_expression.misses == misses + 1


def test_a_template_reference_is_judged_once_across_versions() -> None:
    """invalid-template asks whether the engine's lexer reads each reference's head; the verdict
    stays on the reference, which an unchanged template shares with the next version (asking
    the head's text cache again for every reference cost a look-up each per keystroke)."""
    text = large_workflow(20)
    analyze(text)
    calls = _engine_reads.calls
    analyze(text.replace("score * 2 }", "score * 3 }", 1))
    assert _engine_reads.calls == calls


def test_expression_facts_stay_within_the_bound() -> None:
    facts = TextCache(analyze_expression.compute, max_bytes=2 * 2**20)
    for index in range(24):
        facts(" + ".join(f'run.outputs["n{index}"].v{i}' for i in range(300)))
        assert facts.held_bytes <= facts.max_bytes
    assert facts.held_bytes > facts.max_bytes // 2  # it does hold what fits


def test_a_dataclass_value_counts_the_items_of_its_tuple_fields() -> None:
    facts = analyze_expression('run.outputs["a"].x + run.outputs.b + inputs.c')
    assert (len(facts.output_reads), len(facts.scope_reads)) == (2, 1)
    base = estimated_bytes("t", ())
    assert estimated_bytes("t", facts) == base + PER_ITEM_BYTES * 3
    assert estimated_bytes("t", "not a dataclass") == base  # a str is no tuple of items
