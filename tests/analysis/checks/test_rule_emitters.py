"""Who reports each rule (analysis/checks/registry.py): its own check module, or the YAML reader
and the schema walk, which report only the rules registered as theirs."""

from pathlib import Path

import pytest

import analysis.checks.context as context_module
from analysis.checks.analyze import INTERNAL_ERROR, analyze
from analysis.checks.context import RuleContext
from analysis.checks.registry import CHECKS, RULES, SCHEMA_WALK, YAML_READER
from analysis.diagnostics import Diagnostic
from tests.conftest import CLEAN_WORKFLOW, EXAMPLES, FIXTURES, REPO_ROOT

RULE_MODULES = REPO_ROOT / "analysis" / "checks" / "rules"
WORKFLOWS = sorted((FIXTURES / "rules").glob("*/*.relavium.yaml")) + sorted(
    EXAMPLES.glob("*.relavium.yaml"))


def test_every_rule_module_is_a_registered_check_of_its_family() -> None:
    # a module missing from CHECKS would never run; one under another family's folder misleads
    found = {(path.parent.name, path.stem) for path in RULE_MODULES.glob("*/*.py")
             if path.name != "__init__.py"}
    assert found == {(family, name) for family, names in CHECKS.items() for name in names}


def test_a_rule_is_either_its_own_check_or_found_by_stages_of_the_analysis() -> None:
    stages = {YAML_READER, SCHEMA_WALK}
    for rule in RULES.values():
        assert rule.emitted_by, rule.id
        if set(rule.emitted_by) <= stages:
            assert not (RULE_MODULES / rule.family / f"{rule.id.replace('-', '_')}.py").exists()
        else:
            assert len(rule.emitted_by) == 1 and rule.emitted_by[0].name == f"rule {rule.id}"


def _stage_findings(path: Path) -> tuple[list[Diagnostic], list[Diagnostic]]:
    result = analyze(path.read_text(encoding="utf-8"), str(path))
    if result.workflow is None or result.graph is None:
        return result.document.problems, []
    context = RuleContext(result.source, result.document, result.workflow, result.graph)
    return result.document.problems, context.schema_problems


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_reader_and_the_schema_walk_report_only_the_rules_registered_as_theirs(
        path: Path) -> None:
    read, walked = _stage_findings(path)
    for stage, findings in ((YAML_READER, read), (SCHEMA_WALK, walked)):
        for diagnostic in findings:
            assert stage in RULES[diagnostic.rule].emitted_by, (stage.name, diagnostic)


def test_the_stages_between_them_report_every_rule_registered_as_theirs() -> None:
    reported: set[str] = set()
    for path in WORKFLOWS:
        read, walked = _stage_findings(path)
        reported |= {d.rule for d in read} | {d.rule for d in walked}
    assert reported == {rule.id for rule in RULES.values()
                        if set(rule.emitted_by) <= {YAML_READER, SCHEMA_WALK}}


def test_a_schema_walk_that_fails_is_one_internal_error_and_the_checks_still_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object) -> object:
        raise RuntimeError("walk bug")

    monkeypatch.setattr(context_module, "validate", broken)
    text = CLEAN_WORKFLOW.replace("  edges: []\n",
                                  "    - { id: start, type: input }\n  edges: []\n")
    result = analyze(text)
    assert [(d.rule, d.message) for d in result.diagnostics] == [
        (INTERNAL_ERROR, "the schema walk failed (RuntimeError: walk bug); please report this "
                         "bug with the file"),
        ("duplicate-id", "node id 'start' is already used on line 5; node ids must be unique: "
                         "rename one of them"),
    ]
