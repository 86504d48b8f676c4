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


def _heading_anchor(heading: str) -> str:
    # GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens
    return re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")


PAGE_SECTIONS = {_heading_anchor(h) for h in re.findall(r"^## (.+)$", DOC, re.MULTILINE)}


def test_links_inside_the_catalogue_name_rules_or_sections() -> None:
    for anchor in re.findall(r"\]\(#([a-z-]+)\)", DOC):
        assert anchor in RULES or anchor in PAGE_SECTIONS, anchor


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


# The closing section: one table row per rule, then one per choice of the dry run.
CONTRACTS = DOC[DOC.index("\n## Engine contracts\n"):]
CONTRACT_ROWS = [
    [cell.strip() for cell in line.strip().strip("|").split("|")]
    for line in CONTRACTS.splitlines()
    if line.startswith("| ") and not line.startswith(("| Rule ", "| Dry-run choice ", "| ---"))
]
RULE_ROWS = [row for row in CONTRACT_ROWS if row[0].startswith("[")]
DRY_RUN_ROWS = [row for row in CONTRACT_ROWS if not row[0].startswith("[")]
# A contract cell cites an ADR, an engine file (`…ts`), a contract document (….md), or says the
# finding is ours; a row saying none of these is a claim nobody can check.
CITATION = re.compile(r"ADR-\d{4}|\.ts\b|\.md\b|[Oo]ur judgement|\bours\b|observed")


def test_the_page_ends_with_the_engine_contracts_tables() -> None:
    assert not re.search(r"^## ", CONTRACTS[len("\n## Engine contracts\n"):], re.MULTILINE)
    assert CONTRACTS.rstrip().splitlines()[-1].startswith("| ")


def test_every_rule_has_exactly_one_contract_row_and_every_row_is_a_rule() -> None:
    ids = []
    for row in RULE_ROWS:
        link = re.fullmatch(r"\[([a-z-]+)\]\(#([a-z-]+)\)", row[0])
        assert link and link[1] == link[2], row[0]
        ids.append(link[1])
    assert len(ids) == len(set(ids)), "a rule has two rows"
    assert set(ids) == set(RULES)


def test_each_contract_row_states_the_rules_default_severity_and_cites_its_source() -> None:
    for rule_id, severity, verdict, contract, differs in RULE_ROWS:
        rule_id = rule_id[1:rule_id.index("]")]
        assert severity == RULES[rule_id].severity.name.lower(), rule_id
        assert re.match(r"(refuses|fails|loads)", verdict), rule_id
        assert CITATION.search(contract), rule_id
        assert differs == "—" or re.fullmatch(r"\[[^]]+\]\(#[a-z-]+\)", differs), rule_id


def test_each_dry_run_choice_cites_its_source() -> None:
    assert len(DRY_RUN_ROWS) >= 10
    for choice, contract, differs in DRY_RUN_ROWS:
        assert CITATION.search(contract), choice
        assert differs == "—" or re.fullmatch(r"\[[^]]+\]\(#[a-z-]+\)", differs), choice
