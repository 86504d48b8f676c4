"""The expression rules against their fixtures (fixtures/rules/<rule-id>/), in the same format
and with the same harness as every other rule's (tests/analysis/test_rule_fixtures.py)."""

from pathlib import Path

import pytest

import tests.analysis.test_rule_fixtures as shared

RULE_FIXTURES = Path(__file__).parent / "fixtures" / "rules"


def fixtures(kind: str) -> list[Path]:
    return sorted(RULE_FIXTURES.glob(f"*/{kind}*.relavium.yaml"))


def test_every_expression_rule_has_a_positive_and_a_negative_fixture() -> None:
    for rule_id in shared.EXPRESSION_RULES:
        assert (RULE_FIXTURES / rule_id / "positive.relavium.yaml").is_file(), rule_id
        assert (RULE_FIXTURES / rule_id / "negative.relavium.yaml").is_file(), rule_id


@pytest.mark.parametrize("path", fixtures("positive"), ids=lambda p: p.parent.name)
def test_positive_fixture_reports_exactly_the_expected_diagnostics(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    expected = {
        (int(a), int(b), int(c), int(d), rule) for a, b, c, d, rule in shared.EXPECT.findall(text)
    }
    assert any(rule == path.parent.name for *_, rule in expected), "fixture misses its rule"
    assert shared.found(path) == expected


@pytest.mark.parametrize("path", fixtures("negative"), ids=lambda p: p.parent.name)
def test_negative_fixture_is_clean(path: Path) -> None:
    assert shared.found(path) == set()
