"""The differential corpus (tests/fixtures/parity/<family>/*.relavium.yaml): every workflow states
what the engine's loader does with it and which findings we report, and we report exactly those.

Header (comment lines at the top of each fixture; see tests/fixtures/parity/README.md):
  # engine: loads | refuses <code>   the loader's verdict (parseWorkflow + buildRunPlan)
  # why: <one line citing the engine source>
  # newest: loads|refuses <code> <source>   optional: a newer engine contract says otherwise
  # expect: <rule-id> <line>:<col>   zero or more error/warning findings (1-based)
The verdict we follow is `newest` when given (docs/rules.md lists each such deviation), else
`engine`: a workflow that loads gets no error, one that is refused gets at least one.
With RELAVIUM_ENGINE_CHECK pointing at a loader harness (`node <it> FILE...` printing one JSON
line per file: `ok`, `code`), the real loader's verdict is compared with every `engine:` line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from analysis.checks.analyze import analyze
from analysis.diagnostics import Severity
from tests.conftest import FIXTURES as FIXTURES_DIR

CORPUS = FIXTURES_DIR / "parity"
FIXTURES = sorted(CORPUS.glob("*/*.relavium.yaml"))
_VERDICT = re.compile(r"(loads|refuses [a-z_]+)(?:\s|\Z)")
_EXPECT = re.compile(r"([a-z][a-z-]*) (\d+):(\d+)\Z")


@dataclass(frozen=True)
class Header:
    engine: str  # "loads" or "refuses <code>"
    why: str
    newest: str | None
    expect: frozenset[tuple[str, int, int]]

    @property
    def verdict(self) -> str:
        return self.newest or self.engine


def read_header(path: Path) -> Header:
    fields: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        name, _, value = line[1:].strip().partition(":")
        fields.setdefault(name.strip(), []).append(value.strip())
    engine, why = fields.get("engine", [""]), fields.get("why", [""])
    assert len(engine) == 1 and _VERDICT.match(engine[0]), f"{path}: one '# engine:' line"
    assert len(why) == 1 and why[0], f"{path}: one non-empty '# why:' line"
    newest = None
    if "newest" in fields:
        found = _VERDICT.match(fields["newest"][0])
        assert found is not None and len(fields["newest"]) == 1, f"{path}: bad '# newest:'"
        newest = found.group(1)
    expect = set()
    for value in fields.get("expect", []):
        found = _EXPECT.match(value)
        assert found is not None, f"{path}: '# expect: {value}' is not '<rule-id> <line>:<col>'"
        expect.add((found.group(1), int(found.group(2)), int(found.group(3))))
    return Header(engine[0], why[0], newest, frozenset(expect))


def findings(path: Path) -> dict[tuple[str, int, int], Severity]:
    result = analyze(path.read_text(encoding="utf-8"), str(path))
    return {
        (d.rule, d.range.start.line + 1, d.range.start.character + 1): d.severity
        for d in result.diagnostics if d.severity in (Severity.ERROR, Severity.WARNING)
    }


def test_the_corpus_is_there() -> None:
    families = {path.parent.name for path in FIXTURES}
    assert {"agents", "triggers", "bounds", "inputs", "edges"} <= families


def _fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name.removesuffix('.relavium.yaml')}"


@pytest.mark.parametrize("path", FIXTURES, ids=_fixture_id)
def test_findings_match_the_engine_verdict(path: Path) -> None:
    header = read_header(path)
    found = findings(path)
    assert set(found) == header.expect
    errors = [key for key, severity in found.items() if severity is Severity.ERROR]
    if header.verdict == "loads":
        assert errors == [], "the engine loads this file: no finding may be an error"
    else:
        assert errors, f"the engine refuses this file ({header.verdict}): expected an error"


ENGINE_CHECK = os.environ.get("RELAVIUM_ENGINE_CHECK")


@pytest.mark.skipif(not ENGINE_CHECK, reason="RELAVIUM_ENGINE_CHECK names no engine harness")
def test_the_real_engine_agrees_with_every_header() -> None:
    assert ENGINE_CHECK is not None
    done = subprocess.run(["node", ENGINE_CHECK, *map(str, FIXTURES)], capture_output=True,
                          text=True, timeout=600, check=False)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(answers) == len(FIXTURES), done.stderr[-2000:]
    wrong = []
    for path, answer in zip(FIXTURES, answers, strict=True):
        verdict = "loads" if answer["ok"] else f"refuses {answer.get('code')}"
        if verdict != read_header(path).engine:
            wrong.append(f"{path.relative_to(CORPUS)}: engine {verdict}: {answer.get('message')}")
    assert wrong == []
