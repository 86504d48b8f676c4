"""branches-outside-merge: `branches` exists only in a merge_fn."""

from tests.analysis.expressions.expression_rule_helpers import (
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


def test_branches_in_a_merge_fn_and_shadowed_or_quoted_are_quiet() -> None:
    text = workflow(
        "    - id: join\n"
        "      type: merge\n"
        "      merge_strategy: custom\n"
        "      merge_fn: '{ ...branches[0] }'\n"
        + transform("shape", "((branches) => branches)(1) + 'branches'")
    )
    assert diagnostics(text, "branches-outside-merge") == []
