"""Every rule against its fixtures: tests/fixtures/rules/<rule-id>/{positive,negative}*.yaml.

A positive fixture lists, at its end, every diagnostic the whole analysis must produce as
`# expect: LINE:COL-LINE:COL rule-id` (1-based lines, code-point columns); nothing else may be
reported. A negative fixture must produce no diagnostic at all. Each is analysed as `check` does,
with a workspace index rooted at its rule's folder: a `$ref` names a file there.
"""

import re
from pathlib import Path

import pytest

from analysis.checks.analyze import analyze
from analysis.checks.registry import RULES
from analysis.project.workspace import WorkspaceIndex
from tests.conftest import FIXTURES

RULE_FIXTURES = FIXTURES / "rules"
EXPECT = re.compile(r"^# expect: (\d+):(\d+)-(\d+):(\d+) ([a-z-]+)$", re.MULTILINE)


def fixtures(kind: str) -> list[Path]:
    return sorted(RULE_FIXTURES.glob(f"*/{kind}*.relavium.yaml"))


def found(path: Path) -> set[tuple[int, int, int, int, str]]:
    result = analyze(path.read_text(encoding="utf-8"), str(path),
                     workspace=WorkspaceIndex(str(path.parent)))
    return {
        (d.range.start.line + 1, d.range.start.character + 1, d.range.end.line + 1,
         d.range.end.character + 1, d.rule)
        for d in result.diagnostics
    }


def test_every_rule_has_a_positive_and_a_negative_fixture() -> None:
    for rule_id in RULES:
        assert list(RULE_FIXTURES.glob(f"{rule_id}/positive*.relavium.yaml")), rule_id
        assert list(RULE_FIXTURES.glob(f"{rule_id}/negative*.relavium.yaml")), rule_id


def test_every_fixture_folder_is_a_rule() -> None:
    assert {path.name for path in RULE_FIXTURES.iterdir()} == set(RULES)


@pytest.mark.parametrize("path", fixtures("positive"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_positive_fixture_reports_exactly_the_expected_diagnostics(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    expected = {(int(a), int(b), int(c), int(d), rule)
                for a, b, c, d, rule in EXPECT.findall(text)}
    assert any(rule == path.parent.name for *_, rule in expected), "fixture misses its rule"
    assert found(path) == expected


@pytest.mark.parametrize("path", fixtures("negative"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_negative_fixture_is_clean(path: Path) -> None:
    assert found(path) == set()
