"""A compile that followed the whole tree judges purity from what it saw (`CompiledSurface`),
without purity's own scan of the tree: the two verdicts must be the same on every expression
such a compile completes — random ones, adversarial ones, and every expression of the corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from analysis.document.expressions.parsing import ParsedExpression
from analysis.types import program
from analysis.types.purity import may_rewrite_builtins, surface_may_rewrite_builtins
from tests.analysis.types.strategies import EXPRESSIONS

ROOT = Path(__file__).resolve().parents[3]


def verdicts(source: str) -> tuple[bool, bool] | None:
    """(the surface's verdict, the scan's) for a tree the compile follows whole, else None."""
    parsed = ParsedExpression(source)
    if parsed.broken:
        return None
    compiler = program._Compiler(parsed)
    compiler.expression(parsed.root.named_children[0].named_children[0])
    if not compiler.surface.complete:
        return None
    return surface_may_rewrite_builtins(parsed, compiler.surface), may_rewrite_builtins(parsed)


# Each field of the surface decides one of these; `None`: the compile does not follow the tree,
# and purity's scan decides alone.
CASES = {
    "String(inputs.a)": (False, False),
    "inputs.items.map(x => String(x)).filter(x => x.length > 2)": (False, False),
    "[1].map(x => { const y = x * 2; return Math.max(y, 1) })": (False, False),
    "Object.assign({}, inputs, { a: 1 })": (False, False),  # writes only into a fresh object
    'run.outputs["classify"].topic': (False, False),
    "delete inputs.a": (True, True),
    'inputs.a["constructor"]': (True, True),
    "inputs.a['proto\\u0074ype']": (True, True),
    "inputs.a.constructor": (True, True),
    "[1].map(String => String(1))": (True, True),  # a parameter shadows the global function
    "[1].map(x => { const Number = x; return Number(x) })": (True, True),
    "fetchAll(1)": (True, True),  # not a pure global function
    "Object.assign(inputs, {})": (True, True),
    "inputs.items[inputs.count]": None,  # a computed key: where its value goes is the scan's
    "inputs.a = 1": None,
    "inputs.count++": None,
    "new Map()": None,
    "inputs.f?.()": None,
    "String.raw`x`": None,
    "(f => f(inputs))(Number)": None,
    "[1].map(function (x) { return x })": None,
}


@pytest.mark.parametrize("source", list(CASES))
def test_the_surface_and_the_scan_agree_on_each_case(source: str) -> None:
    expected = CASES[source]
    assert verdicts(source) == expected


@given(EXPRESSIONS)
def test_the_surface_and_the_scan_agree_on_random_expressions(source: str) -> None:
    found = verdicts(source)
    if found is not None:
        assert found[0] == found[1], source


_HOSTILE = st.sampled_from((
    "delete {e}.a", "{e}['constructor']", "{e}['a']", "{e}[0]", "[{e}].map(String => String(1))",
    "[{e}].map(x => {{ const Math = 1; return x }})", "Math.max({e}, 1)", "{e}.call({e})",
    "Object.assign({{}}, {e})", "Object.assign({e}, {{}})", "parseInt({e})", "g({e})",
    "[{e}].map(x => {{ const parseInt = x; return parseInt(x) }})", "(typeof {e})",
    "`${{{e}['__proto__']}}`", "{e}?.['bind']", "({{ a: {e} }})['assign']"))


@given(st.recursive(EXPRESSIONS, lambda inner: st.builds(str.format, _HOSTILE, e=inner),
                    max_leaves=4))
def test_the_surface_and_the_scan_agree_on_adversarial_expressions(source: str) -> None:
    found = verdicts(source)
    if found is not None:
        assert found[0] == found[1], source


def _corpus_expressions() -> list[str]:
    found: set[str] = set()
    for path in [*ROOT.glob("tests/fixtures/**/*.yaml"), *ROOT.glob("examples/**/*.yaml")]:
        try:
            document = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        workflow = document.get("workflow") if isinstance(document, dict) else None
        nodes = workflow.get("nodes") if isinstance(workflow, dict) else None
        for node in nodes if isinstance(nodes, list) else ():
            if isinstance(node, dict):
                found.update(value for key in ("expression", "transform", "merge_fn")
                             if isinstance(value := node.get(key), str))
    return sorted(found)


def test_the_surface_and_the_scan_agree_on_every_corpus_expression() -> None:
    sources = _corpus_expressions()
    judged = [(source, found) for source in sources if (found := verdicts(source)) is not None]
    # most of the corpus compiles whole (70 of its 80 expressions): the fast path is exercised
    assert len(judged) * 2 > len(sources) > 50
    assert [source for source, (surface, scan) in judged if surface != scan] == []
