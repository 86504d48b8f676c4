"""The typed checks (#23) are quiet: no finding on a workflow the engine runs, and never a claim
that a read is absent where a dry run reads a value.

The corpus: the engine-parity corpus (tests/fixtures/parity/, each file the released loader
`loads` and no newer contract refuses), this repository's examples and every rule's negative
fixtures and documented fixes, and — when the engine mirror is on this machine — the engine's own
harness workflows (HodeTech/Relavium `apps/cli/src/harness/fixtures/`, read from the mirror,
never copied here).
The cross-check runs each workflow of the corpus and of the typed rules' positive fixtures
through the real dry run: wherever a finding says a property is absent, the value the dry run
stored for the producer has no such key along that path.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from analysis.checks.analyze import analyze
from analysis.dryrun.runner import run_workflow
from analysis.dryrun.values import UNDEFINED
from sandbox import Outcome, Scope, evaluate
from tests.analysis.checks.test_rule_docs import SECTIONS, example_and_fix
from tests.conftest import FIXTURES, REPO_ROOT

TYPED_RULES = frozenset({"unknown-output-property", "read-of-absent-value",
                         "impossible-branch-value", "template-filter-type"})
ABSENCE_RULES = frozenset({"unknown-output-property", "read-of-absent-value"})
ENGINE_MIRROR = Path("/work/.mirror/HodeTech+Relavium/repo")
ENGINE_FIXTURES = "apps/cli/src/harness/fixtures"


def _parity_runs(path: Path) -> bool:
    header = path.read_text(encoding="utf-8")
    return "# engine: loads" in header and "# newest: refuses" not in header


def _engine_workflows() -> dict[str, str]:
    if not ENGINE_MIRROR.is_dir():
        return {}
    git = ["git", f"--git-dir={ENGINE_MIRROR}"]
    names = subprocess.run([*git, "ls-tree", "--name-only", f"HEAD:{ENGINE_FIXTURES}"],
                           capture_output=True, text=True, check=False).stdout.split()
    return {f"engine:{name}": subprocess.run(
        [*git, "show", f"HEAD:{ENGINE_FIXTURES}/{name}"], capture_output=True, text=True,
        check=True).stdout for name in names if name.endswith(".relavium.yaml")}


def corpus() -> dict[str, str]:
    found = {str(path.relative_to(REPO_ROOT)): path.read_text(encoding="utf-8")
             for path in sorted((FIXTURES / "parity").rglob("*.relavium.yaml"))
             if _parity_runs(path)}
    for path in [*sorted((REPO_ROOT / "examples").glob("*.relavium.yaml")),
                 *sorted((FIXTURES / "rules").glob("*/negative*.relavium.yaml"))]:
        found[str(path.relative_to(REPO_ROOT))] = path.read_text(encoding="utf-8")
    for rule_id, section in SECTIONS.items():
        found[f"docs/rules.md#{rule_id} (fixed)"] = example_and_fix(section)[2]
    found.update(_engine_workflows())
    return found


CORPUS = corpus()


def test_the_corpus_is_the_one_described() -> None:
    assert sum(name.startswith("tests/fixtures/parity/") for name in CORPUS) >= 30
    assert "examples/ticket-triage.relavium.yaml" in CORPUS


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_no_typed_finding_on_a_workflow_the_engine_runs(name: str) -> None:
    findings = [(d.rule, d.message) for d in analyze(CORPUS[name]).diagnostics
                if d.rule in TYPED_RULES]
    assert findings == []


def in_process(source: str, kind: str, scope: Scope) -> Outcome:
    return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]


def _at(value: Any, path: list[str]) -> Any:
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return UNDEFINED
        value = value[key]
    return value


POSITIVES = {str(path.relative_to(REPO_ROOT)): path.read_text(encoding="utf-8")
             for rule in sorted(ABSENCE_RULES)
             for path in sorted((FIXTURES / "rules" / rule).glob("positive*.relavium.yaml"))}
WITH_VALUES = {**POSITIVES, "examples/ticket-triage.relavium.yaml":
               CORPUS["examples/ticket-triage.relavium.yaml"]}


@pytest.mark.parametrize("name", sorted(WITH_VALUES))
def test_a_property_claimed_absent_is_absent_in_a_dry_run(name: str) -> None:
    result = analyze(WITH_VALUES[name])
    assert result.workflow is not None and result.graph is not None
    run = run_workflow(result.workflow, result.graph, in_process)
    claims = [d.data for d in result.diagnostics if d.rule in ABSENCE_RULES and d.data]
    checked = 0
    for claim in claims:
        stored = run.outputs.get(claim["target"], UNDEFINED)
        if stored is UNDEFINED:
            continue  # the producer did not run: nothing to compare
        checked += 1
        assert _at(stored, claim["path"]) is UNDEFINED, claim
    # without a samples file every agent answers (its schema's skeleton), so each claim is
    # compared, and the positive fixtures make some
    assert checked == len(claims)
    assert claims or name.startswith("examples/")
