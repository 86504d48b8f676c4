"""Every rule's section in docs/rules.md shows a failing example and its fix, and both are true:
`relavium-lsp check` reports exactly that rule on the example and nothing on the fix.

The shape, for each `### <rule-id>` section: a line `Example:` then a fenced ```yaml block (a
whole workflow), and later a line `Fixed:` then another. `Example (…):` may say in parentheses
`also reports [other-rule](#other-rule)` (a rule that always comes with it) or
`` `…` stands for `TEXT` repeated N times `` (a text too long to show). Before them, a line
``Beside it, `NAME`:`` and a ```yaml block is a file written next to the example and its fix (an
agent file a `$ref` names), which is not checked itself.
"""

import json
import re
from pathlib import Path

import pytest

from analysis.checks.registry import RULES
from tests.conftest import REPO_ROOT, relavium_lsp

DOC = (REPO_ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
SECTION = re.compile(r"^### ([a-z-]+)\n(.*?)(?=^##)", re.MULTILINE | re.DOTALL)
BLOCK = re.compile(r"^(Example|Fixed)(?: \((.+)\))?:\n\n```yaml\n(.*?)^```$",
                   re.MULTILINE | re.DOTALL)
BESIDE = re.compile(r"^Beside it, `([a-z0-9.-]+)`:\n\n```yaml\n(.*?)^```$",
                    re.MULTILINE | re.DOTALL)
ALSO = re.compile(r"also reports \[([a-z-]+)\]\(#\1\)")
REPEATED = re.compile(r"`…` stands for `([^`]+)` repeated ([\d,]+) times")


def example_and_fix(section: str) -> tuple[str, set[str], str]:
    """The example's text (`…` expanded), the other rules it also reports, the fix's text."""
    blocks = BLOCK.findall(section)
    assert [kind for kind, _, _ in blocks] == ["Example", "Fixed"], blocks
    (_, note, example), (_, fixed_note, fixed) = blocks
    assert not fixed_note
    also: set[str] = set()
    if also_reports := ALSO.fullmatch(note):
        also.add(also_reports.group(1))
    elif repeated := REPEATED.fullmatch(note):
        assert example.count("…") == 1
        example = example.replace("…", repeated.group(1) * int(repeated.group(2).replace(",", "")))
    else:
        assert not note, f"unknown note {note!r}"
    return example, also, fixed


SECTIONS = dict(SECTION.findall(DOC))


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """File name → the rule ids `check` reports in it, for every rule's example and fix (one run
    of the real command line for all of them)."""
    folder = tmp_path_factory.mktemp("rule-docs")
    paths: list[Path] = []
    for rule_id, section in SECTIONS.items():
        for name, text in BESIDE.findall(section):
            (folder / name).write_text(text, encoding="utf-8")
        example, _, fixed = example_and_fix(section)
        for kind, text in (("example", example), ("fixed", fixed)):
            path = folder / f"{rule_id}.{kind}.relavium.yaml"
            path.write_text(text, encoding="utf-8")
            paths.append(path)
    result = relavium_lsp("check", "--no-config", "--format", "json", *map(str, paths),
                          cwd=folder)
    assert result.returncode in (0, 1), result.stderr
    found: dict[str, list[str]] = {path.name: [] for path in paths}
    for finding in json.loads(result.stdout):
        found[Path(finding["path"]).name].append(finding["code"])
    return found


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_the_example_reports_the_rule_and_the_fix_reports_nothing(
        rule_id: str, reported: dict[str, list[str]]) -> None:
    assert rule_id in SECTIONS, f"docs/rules.md has no section ### {rule_id}"
    _, also, _ = example_and_fix(SECTIONS[rule_id])
    assert set(reported[f"{rule_id}.example.relavium.yaml"]) == {rule_id} | also
    assert reported[f"{rule_id}.fixed.relavium.yaml"] == []


def test_a_section_without_its_example_fails() -> None:
    without = SECTIONS["cycle"].replace("Fixed:", "Fix:")
    with pytest.raises(AssertionError):
        example_and_fix(without)
