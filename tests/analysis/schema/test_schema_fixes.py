"""A misspelt key (`lable:`) carries its fix, the closest key, as a typed edit on its unknown-key
diagnostic — also when the schema walk takes the finding over from the previous version at a new
place."""

from __future__ import annotations

from analysis.checks.analyze import AnalysisResult, analyze
from analysis.diagnostics import Diagnostic, Edit, Fix
from analysis.document.source import SourceText

MISSPELT = """\
schema_version: '1.0'
workflow:
  id: fixes
  nodes:
    - id: start
      type: input
      lable: Start
    - { id: finish, type: output, zzz: 1 }
  edges:
    - { from: start, to: finish }
"""


def unknown_keys(result: AnalysisResult) -> list[Diagnostic]:
    return [d for d in result.diagnostics if d.rule == "unknown-key"]


def applied(text: str, fix: Fix) -> str:
    source = SourceText(text)
    for edit in sorted(fix.edits, key=lambda edit: edit.range.start, reverse=True):
        start, end = source.offset(edit.range.start), source.offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


def key_range(text: str, key: str) -> tuple[int, int]:
    start = text.index(f"{key}:")
    return start, start + len(key)


def test_a_misspelt_key_offers_the_closest_key_as_an_unsafe_fix() -> None:
    lable, zzz = unknown_keys(analyze(MISSPELT))
    source = SourceText(MISSPELT)
    assert "did you mean 'label'?" in lable.message
    assert lable.fixes == (Fix("Change `lable` to `label`",
                               (Edit(source.range(*key_range(MISSPELT, "lable")), "label"),),
                               safe=False),)
    fixed = applied(MISSPELT, lable.fixes[0])
    assert "      label: Start\n" in fixed
    assert [d.message for d in unknown_keys(analyze(fixed))] == [zzz.message]
    # No key is close to `zzz`: the message lists the allowed keys and no fix is guessed.
    assert "allowed keys" in zzz.message and zzz.fixes == ()


def test_a_refused_key_has_its_explanation_and_no_fix() -> None:
    text = MISSPELT.replace("  nodes:\n", "  trigger: { type: schedule, cron: '0 9 * * *' }\n"
                            "  nodes:\n")
    [cron] = [d for d in unknown_keys(analyze(text)) if "cron" in d.message]
    assert "the value of 'schedule' itself" in cron.message and cron.fixes == ()


def test_a_finding_taken_over_after_an_edit_above_it_keeps_a_fix_on_the_key() -> None:
    before = analyze(MISSPELT)
    # Lines above the nodes: the node items' text is unchanged, their findings are taken over.
    text = MISSPELT.replace("  id: fixes\n", "  id: fixes\n  description: moved on\n"
                            "  name: Fixes\n")
    after = analyze(text, previous=before)
    assert after.schema_memo is not None and before.schema_memo is not None
    assert any(before.schema_memo.units.get(key) is found
               for key, found in after.schema_memo.units.items() if "lable" in key[1])
    [lable] = [d for d in unknown_keys(after) if "lable" in d.message]
    [edit] = lable.fixes[0].edits
    source = SourceText(text)
    assert edit.range == lable.range == source.range(*key_range(text, "lable"))
    assert "label: Start" in applied(text, lable.fixes[0])
    assert after.diagnostics == analyze(text).diagnostics
