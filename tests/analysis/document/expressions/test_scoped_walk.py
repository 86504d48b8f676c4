"""`ScopedWalk` given targets visits exactly what the whole walk visits among the nodes that hold
a target, in the same order, with the same path and the same free names at each node; the
expression scan's targets, found by a text search, give the facts the exact targets give."""

from collections.abc import Iterator
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tree_sitter import Node, QueryCursor

from analysis.document.expressions import facts
from analysis.document.expressions.facts import _INTERESTING
from analysis.document.expressions.js_text import decode_identifier
from analysis.document.expressions.parsing import ParsedExpression, query
from analysis.document.expressions.scope import ScopedWalk
from tests.analysis.document.expressions.test_expression_fuzz import any_text, js_like
from tests.operations import lines_executed

_NAMES = ("run", "inputs", "ctx", "branches", "Date", "x", "a")
# Opaque leaves are pruned as the expression scan prunes them; "arguments" and "arrow_function"
# prune subtrees that hold targets too.
_PRUNED = ("string", "comment", "regex", "number", "arguments", "arrow_function")


def _visits(walk: ScopedWalk, prune: tuple[str, ...]) -> Iterator[tuple[object, ...]]:
    for node in walk:
        yield (node.type, node.start_byte, node.end_byte,
               tuple((n.type, n.start_byte) for n in walk.path),
               tuple(name for name in _NAMES if walk.is_free(name)))
        if node.type in prune:
            walk.skip_children()


def _reference(parsed: ParsedExpression, targets: list[int],
               prune: tuple[str, ...]) -> list[tuple[object, ...]]:
    """The whole walk, keeping the root and the nodes whose span holds a target, and dropping the
    subtrees below a node that does not (what the targeted walk must give)."""
    walk = ScopedWalk(parsed.root, lambda node: decode_identifier(parsed.text(node)))
    kept = []
    for node in walk:
        holds = node == parsed.root or any(node.start_byte <= t < node.end_byte for t in targets)
        if not holds:
            walk.skip_children()
            continue
        kept.append((node.type, node.start_byte, node.end_byte,
                     tuple((n.type, n.start_byte) for n in walk.path),
                     tuple(name for name in _NAMES if walk.is_free(name))))
        if node.type in prune:
            walk.skip_children()
    return kept


def _targets(parsed: ParsedExpression, seed: int) -> list[int]:
    """Start bytes of some leaves and inner nodes, with repeats and bytes between tokens."""
    starts: list[int] = []
    stack = [parsed.root]
    while stack:
        node = stack.pop()
        starts.append(node.start_byte)
        stack.extend(node.children)
    chosen = Random(seed).sample(starts, k=min(len(starts), 6))
    chosen += [start + 1 for start in chosen[:2]] + chosen[:1]
    return sorted(chosen)


def _check(source: str, seed: int) -> None:
    parsed = ParsedExpression(source)
    targets = _targets(parsed, seed)
    name_of = lambda node: decode_identifier(parsed.text(node))  # noqa: E731
    for prune in ((), _PRUNED):
        walk = ScopedWalk(parsed.root, name_of, targets)
        assert list(_visits(walk, prune)) == _reference(parsed, targets, prune)


@settings(max_examples=300, deadline=None)
@given(st.one_of(js_like, any_text), st.integers(0, 1000))
def test_targeted_walk_is_the_whole_walk_restricted_to_the_targets(source: str, seed: int) -> None:
    _check(source, seed)


@pytest.mark.parametrize("source", [
    "run.outputs['a'] + ((run) => run.outputs.b)(1) + f(...branches)",
    "function f(x) { var Date = 1; return x + Date } (f(inputs.x))",
    "`${ctx.a}é${`${run.outputs.𝑥}`}` /* c */ + [1, 2].map(function (a) { return a })",
    "{ a: 1, b: [x, { c: (y) }], 'é': inputs['key'] }",
    "x ? (y, z) : (async () => { with (o) { run } })()",
])
def test_targeted_walk_on_nested_scopes(source: str) -> None:
    for seed in range(20):
        _check(source, seed)


def test_a_pruned_root_yields_only_the_root() -> None:
    parsed = ParsedExpression("run.outputs.a")
    walk = ScopedWalk(parsed.root, lambda node: None, [3, 5])
    seen = []
    for node in walk:
        seen.append(node.type)
        walk.skip_children()
    assert seen == ["program"]


# What the scan's targets were: the start of every identifier naming something of interest (or
# escaped), and of every `async`, `await` and `import` — found on the tree. The text search that
# replaced it finds more places; the facts must not change.
_EXACT_CANDIDATES = query(
    '[(identifier) (shorthand_property_identifier) "async" "await" (import)] @candidate'
)
_INTERESTING_BYTES = {name.encode() for name in _INTERESTING}


def _exact_nodes(parsed: ParsedExpression) -> list[Node]:
    found = QueryCursor(_EXACT_CANDIDATES).captures(parsed.root).get("candidate", [])
    return [
        node
        for node in found
        if node.type in ("async", "await", "import")
        or (text := node.text or b"") in _INTERESTING_BYTES
        or b"\\" in text
    ]


def _exact_candidates(parsed: ParsedExpression) -> list[int]:
    return sorted(node.start_byte for node in _exact_nodes(parsed))


def _facts_with(candidates: object, source: str) -> object:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(facts, "_candidates", candidates)
        return facts.analyze_expression.__wrapped__(source)


def _same_facts(source: str) -> None:
    parsed = ParsedExpression(source)
    searched = facts._candidates(parsed)
    assert searched == sorted(searched)
    # Every node the exact targets start is found (the text search may find more places).
    for node in _exact_nodes(parsed):
        assert any(node.start_byte <= byte < node.end_byte for byte in searched), node
    assert _facts_with(_exact_candidates, source) == facts.analyze_expression.__wrapped__(source)


@settings(max_examples=400, deadline=None)
@given(st.one_of(js_like, any_text))
def test_text_search_targets_give_the_facts_of_the_exact_targets(source: str) -> None:
    _same_facts(source)


@pytest.mark.parametrize("source", [
    "'run.outputs.a' + /* run.outputs.b */ run.outputs.c // ctx.d",
    "runner.outputs.a + x.run + { run } + { Date } + Daterun + branchesetTimeout",
    "r\\u0075n.outputs['a'] + \\u0063tx.k + 'r\\u0075n' + `${inputs.x}run${ctx.y}`",
    "async () => await import('x') + Math.random() + globalThis.Date",
    "((run, ctx) => run.outputs.a + ctx.b)(x) + run.outputs['é-𝑥'] + inputs.é",
    "/run/.test(ctx.a) ? Promise : typeof Date",
])
def test_text_search_targets_on_names_in_strings_comments_and_longer_names(source: str) -> None:
    _same_facts(source)


def _gap_targets_cost(scale: int) -> int:
    """Lines executed walking to a target `scale` parentheses deep, then to `scale` targets in the
    blank between two operands near the root, which no child holds."""
    source = "(" * scale + "x" + ")" * scale + " +" + " " * (scale + 1) + "y"
    parsed = ParsedExpression(source)
    blank = parsed.data.index(b"+") + 2
    targets = [parsed.data.index(b"x"), *range(blank, blank + scale)]
    walk = ScopedWalk(parsed.root, lambda node: None, targets)
    return lines_executed(lambda: list(walk), "analysis")


def test_targets_between_children_after_a_deep_path_cost_linear_work() -> None:
    # Each target used to look down the whole deep path again: 10x the input cost 100x.
    small, large = _gap_targets_cost(60), _gap_targets_cost(600)
    assert large <= 13 * small, (small, large)
