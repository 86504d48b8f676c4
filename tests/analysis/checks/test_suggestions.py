"""'Did you mean' over many names (analysis.naming.Suggestions): the hints of comparing with
every name, each unknown name answered once, and bounded work however many are asked about."""

from __future__ import annotations

import difflib
import random
import string
from collections.abc import Callable, Iterator

import pytest

from analysis.checks.analyze import analyze
from analysis.naming import MAX_COMPARISONS, Suggestions
from tests.analysis.large_workflow import large_workflow


def random_names(rng: random.Random, count: int) -> list[str]:
    return ["".join(rng.choices(string.ascii_lowercase[:6] + "-", k=rng.randint(0, 16)))
            for _ in range(count)]


@pytest.mark.parametrize("seed", range(5))
def test_the_hint_is_the_one_comparing_with_every_name_finds(seed: int) -> None:
    """Leaving out the names whose length rules a ratio of 0.6 out changes no answer."""
    rng = random.Random(seed)
    names = random_names(rng, 400)
    for asked in random_names(rng, 100) + [name[:-1] + "x" for name in names[:20]]:
        suggestions = Suggestions(names)  # a fresh budget for each
        expected = difflib.get_close_matches(asked, names, n=1)
        assert suggestions.closest(asked) == (expected[0] if expected else None), asked
        others = [name for name in names if name != asked]
        expected = difflib.get_close_matches(asked, others, n=1)
        assert suggestions.closest(asked, excluding=asked) == (
            expected[0] if expected else None), asked


def test_among_thousands_of_similar_names_a_typo_finds_its_own() -> None:
    names = [f"b{i}-{kind}" for i in range(1_000) for kind in ("classify", "route", "shape")]
    suggestions = Suggestions(names)
    assert suggestions.closest("b517-clasify") == "b517-classify"
    assert suggestions.closest("b9-route", excluding="b9-route") != "b9-route"
    assert suggestions.did_you_mean("b42-shaep") == (" (did you mean 'b42-shape'?)",
                                                    {"replacement": "b42-shape"})


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many names each "did you mean" compared an unknown one with, as they are asked."""
    counts: list[int] = []
    real = difflib.get_close_matches

    def counted(word: str, possibilities: list[str], n: int = 3, cutoff: float = 0.6
                ) -> list[str]:
        counts.append(len(possibilities))
        return real(word, possibilities, n, cutoff)

    monkeypatch.setattr(difflib, "get_close_matches", counted)
    yield counts


def test_the_same_unknown_name_is_compared_once(compared: list[int]) -> None:
    suggestions = Suggestions([f"node-{i}" for i in range(100)])
    for _ in range(1_000):
        assert suggestions.closest("node-7x") == "node-7"
    assert len(compared) == 1


def dangling(blocks: int) -> str:
    """A workflow of `blocks` × 10 nodes with an edge to a misspelt node per block."""
    edges = "".join(f"    - {{ from: b{i}-pass, to: b{i}-clasify }}\n" for i in range(blocks))
    return large_workflow(blocks) + edges


def misspelt_reads(blocks: int) -> str:
    """A workflow of `blocks` × 10 nodes whose last node of each block reads a misspelt id."""
    return large_workflow(blocks).replace('-note"], run.outputs', '-nte"], run.outputs')


@pytest.fixture
def comparisons(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many pairs of names difflib compares, however its caller imported it:
    get_close_matches gives its matcher each possibility with `set_seq1`."""
    count = [0]
    real = difflib.SequenceMatcher.set_seq1

    def counted(matcher: difflib.SequenceMatcher[str], a: str) -> None:
        count[0] += 1
        real(matcher, a)

    monkeypatch.setattr(difflib.SequenceMatcher, "set_seq1", counted)
    yield count


# rule → (a workflow of n blocks with one misspelt name per block, the hint for block i)
MISSPELT: dict[str, tuple[Callable[[int], str], Callable[[int], str]]] = {
    "unknown-node": (dangling, lambda i: f"(did you mean 'b{i}-classify'?)"),
    "unknown-output-reference": (misspelt_reads, lambda i: f"did you mean `b{i}-note`?"),
}


@pytest.mark.parametrize("rule", MISSPELT)
def test_hints_for_many_unknown_names_take_bounded_work(rule: str,
                                                        comparisons: list[int]) -> None:
    """unknown-node (and unknown-output-reference) compared each of m misspelt ids with all n
    node ids: 10x the workflow made 100x the comparisons (2,000 among 2,000 took 30 s, and
    42 s). Now a check stops hinting once it has compared MAX_COMPARISONS names; the first
    findings keep their hints, the hints comparing with every name gives."""
    misspelt, hint = MISSPELT[rule]
    work = []
    for blocks in (40, 400):
        comparisons[0] = 0
        result = analyze(misspelt(blocks))
        findings = [d for d in result.diagnostics if d.rule == rule]
        assert len(findings) == blocks
        hinted = [d for d in findings if "did you mean" in d.message]
        assert hinted == findings[: len(hinted)]
        assert all(hint(i) in d.message for i, d in enumerate(hinted))
        work.append(comparisons[0])
        assert work[-1] <= MAX_COMPARISONS
        if blocks == 40:
            assert hinted == findings  # a small workflow's every finding gets its hint
        else:
            assert 0 < len(hinted) < blocks
    assert work[1] <= 12 * work[0], work
