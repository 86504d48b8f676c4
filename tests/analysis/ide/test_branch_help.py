"""Signature help for `branches[` in a merge_fn: one signature per branch while every branch
surely completes, one for any branch where a condition gates one (the engine's `branches` keeps
only completed branches, so indices can shift)."""

from __future__ import annotations

from analysis.checks.analyze import analyze
from analysis.ide.branch_help import branch_help
from tests.analysis.ide.typed_workflow import TYPED

MERGE_FN = "merge_fn: '[branches[0].size, branches[1].note]'"
MODEL = analyze(TYPED)


def test_each_index_names_its_branch() -> None:
    text = TYPED.replace(MERGE_FN, "merge_fn: 'branches?.[")
    found = branch_help(MODEL, text, text.index("branches?.[") + len("branches?.["))
    assert found is not None and found.active == 0
    assert [s.documentation for s in found.signatures] == [
        "the output of `left` — inferred from left's transform",
        "the output of `right` — inferred from right's transform"]
    text = TYPED.replace(MERGE_FN, "merge_fn: 'branches[ 7")
    found = branch_help(MODEL, text, text.index("branches[ 7") + len("branches[ 7"))
    assert found is not None and found.active == 1  # past the last: the last stays shown


def test_a_gated_branch_gives_one_signature_for_any_branch() -> None:
    gated = TYPED.replace("    - { id: fan, type: parallel, parallel_of: [left, right] }\n", (
        "    - id: fan\n      type: condition\n"
        "      expression: 'inputs.limit > 1 ? \"a\" : \"b\"'\n"
        "      branches: [{ when: a, target_node: left }]\n      default: right\n"
    )).replace("{ from: fan, to: left }", "{ from: 'fan:a', to: left }").replace(
        "{ from: fan, to: right }", "{ from: 'fan:default', to: right }")
    typing = gated.replace(MERGE_FN, "merge_fn: 'branches[")
    found = branch_help(analyze(gated), typing, typing.index("branches[") + len("branches["))
    assert found is not None
    (signature,) = found.signatures
    assert signature.label == "branches[i]: { size: number } | { note: string }"
    assert "a condition gates some of them" in signature.documentation


def test_quiet_outside_a_merge_fn_index() -> None:
    text = TYPED.replace(MERGE_FN, "merge_fn: 'branches.map(")
    assert branch_help(MODEL, text, text.index("map(") + 4) is None
    assert branch_help(MODEL, TYPED, TYPED.index("labels[0]") + len("labels[")) is None


def test_every_offset_answers_without_raising() -> None:
    answered = [branch_help(MODEL, TYPED, offset) for offset in range(len(TYPED) + 1)]
    # only the two `branches[` of the merge_fn, each right after its `[` and on its index
    helped = [offset for offset, found in enumerate(answered) if found is not None]
    first = TYPED.index("branches[0]") + len("branches[")
    second = TYPED.index("branches[1]") + len("branches[")
    assert helped == [first, first + 1, second, second + 1]
