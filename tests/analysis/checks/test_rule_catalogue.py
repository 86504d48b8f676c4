"""The rule registry and docs/rules.md agree: one section per rule id, under its family's heading,
no stale sections."""

import json
import re

from analysis.checks.registry import RULES
from analysis.diagnostics import Severity
from tests.conftest import REPO_ROOT

DOC = (REPO_ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
SECTIONS = re.findall(r"^### ([a-z-]+)$", DOC, re.MULTILINE)


def test_every_rule_has_an_id_severity_and_one_line_summary() -> None:
    assert len(RULES) >= 29
    for rule_id, rule in RULES.items():
        assert re.fullmatch(r"[a-z]+(?:-[a-z]+)*", rule_id)
        assert isinstance(rule.severity, Severity)
        assert rule.summary and "\n" not in rule.summary
        assert rule.docs_url.endswith(f"/docs/rules.md#{rule_id}")


def test_every_rule_has_exactly_one_section_and_every_section_is_a_rule() -> None:
    documented = set(SECTIONS)
    assert len(SECTIONS) == len(documented)
    assert set(RULES) <= documented
    assert documented <= set(RULES)


def test_links_inside_the_catalogue_name_rules() -> None:
    for anchor in re.findall(r"\]\(#([a-z-]+)\)", DOC):
        assert anchor in RULES


def test_every_rule_is_documented_under_its_family() -> None:
    family = None
    for heading, rule_id in re.findall(r"^## (.+)$|^### ([a-z-]+)$", DOC, re.MULTILINE):
        if heading:
            family = heading.lower()
        else:
            assert RULES[rule_id].family == family, rule_id


def test_the_vscode_settings_state_each_rules_default_severity() -> None:
    # the extension's `relavium.rules` descriptions name the default ("Default: `warning`.") and
    # go stale when a rule's severity changes (unknown-agent's said `error`)
    manifest = json.loads((REPO_ROOT / "editors" / "vscode" / "package.json").read_text("utf-8"))
    offered = manifest["contributes"]["configuration"]["properties"]["relavium.rules"]["properties"]
    for rule_id, setting in offered.items():
        default = RULES[rule_id].severity.name.lower()
        assert f"`{default}`" in setting["markdownDescription"], rule_id
