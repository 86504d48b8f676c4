"""`ScopedWalk` given targets visits exactly what the whole walk visits among the nodes that hold
a target, in the same order, with the same path and the same free names at each node."""

from collections.abc import Iterator
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.expressions.js_text import decode_identifier
from analysis.expressions.parsing import ParsedExpression
from analysis.expressions.scope import ScopedWalk
from tests.analysis.expressions.test_expression_fuzz import any_text, js_like

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
