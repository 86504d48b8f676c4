"""branches-outside-merge: `branches` holds the branch results only in a merge_fn; elsewhere the
engine binds it to null (packages/core/src/expression/sandbox.ts buildProgram), so only a use that
throws on null is reported. Each verdict below was checked with `const branches = null` in Node."""

import pytest

from tests.analysis.checks.rules.expressions.expression_rule_helpers import (
    diagnostics,
    range_text,
    transform,
    workflow,
)


def test_branches_in_a_transform() -> None:
    text = workflow(transform("shape", "branches.map(b => b.x)"))
    (found,) = diagnostics(text, "branches-outside-merge")
    assert range_text(text, found) == "branches"
    assert "transform expression" in found.message
    assert "TypeError" in found.message and "null" in found.message
    assert "ReferenceError" not in found.message


@pytest.mark.parametrize(("source", "reported"), [
    ("branches[0]", ["branches"]),
    ("branches.length", ["branches"]),
    ("(branches)[0]", ["branches"]),
    ("branches()", ["branches"]),
    ("[...branches]", ["branches"]),
    ("Math.max(...branches)", ["branches"]),
    ("(() => { for (const b of branches) {} return 1 })()", ["branches"]),
    ("(branches = 1)", ["branches"]),
    ("branches++", ["branches"]),
    ("typeof branches", []),
    ("branches ?? 1", []),
    ("branches === null", []),
    ("branches?.length", []),
    ("branches?.[0]", []),
    ("branches?.()", []),
    ("({ ...branches })", []),
    ("JSON.stringify(branches)", []),
    ("(() => { for (const b in branches) {} return 1 })()", []),
])
def test_only_a_use_that_throws_on_null_is_reported(source: str, reported: list[str]) -> None:
    as_transform = transform("shape", source)
    as_condition = as_transform.replace("type: transform\n      transform:",
                                        "type: condition\n      expression:")
    for text in (workflow(as_transform), workflow(as_condition)):
        found = diagnostics(text, "branches-outside-merge")
        assert [range_text(text, d) for d in found] == reported


def test_branches_in_a_merge_fn_and_shadowed_or_quoted_are_quiet() -> None:
    text = workflow(
        "    - id: join\n"
        "      type: merge\n"
        "      merge_strategy: custom\n"
        "      merge_fn: '{ ...branches[0] }'\n"
        + transform("shape", "((branches) => branches)(1) + 'branches'")
    )
    assert diagnostics(text, "branches-outside-merge") == []
