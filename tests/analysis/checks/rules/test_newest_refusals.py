"""The newest engine contract's load-time refusals, through the real command line: each refusal
and its near-miss control (one past the ceiling is refused, the ceiling itself loads).

Sources (HodeTech/Relavium, the search index's newest versions; the July snapshot loads all of
these files):
- ADR-0086 §2 (docs/decisions/0086-absolute-admission-ceilings-on-authored-values.md @ b773847)
  and `packages/core/src/limits.ts` (`ADMISSION_CEILINGS`, `collectWorkflowCeilingIssues`,
  `collectAgentCeilingIssues`; the version with `countMaterialisedEdges`, newer than @9a5ad36):
  500 nodes, 2,000 edges (condition branches counted), 50 distinct targets, `retry.max` 10,
  5 `fallback_chain` entries, `max_attempts` 10, `max_parallel` 64 — refused, never clamped.
- ADR-0091, correction of 2026-09-03 (@ 5b4de63): a `parallel_of` member listed twice is refused
  at parse.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, relavium_lsp

RULES = FIXTURES / "rules"
HEAD = "schema_version: '1.0'\nworkflow:\n  id: demo\n  nodes:\n    - { id: start, type: input }\n"


def chain(count: int) -> str:
    """`count` nodes in a line (generated: a 500-node fixture would slow every test that reads
    all fixtures)."""
    nodes = "".join(f"    - {{ id: n{i}, type: transform, transform: '1' }}\n"
                    for i in range(1, count))
    edges = "".join(f"    - {{ from: {f'n{i - 1}' if i > 1 else 'start'}, to: n{i} }}\n"
                    for i in range(1, count))
    return f"{HEAD}{nodes}  edges:\n{edges}"


def routes(count: int) -> str:
    """`count` edges: 40 written from `start` to 40 conditions, their branches the rest (branches
    count as edges, not as fan-out width)."""
    conditions = 40
    per, extra = divmod(count - conditions, conditions)
    nodes = "".join(
        f"    - {{ id: c{i}, type: condition, expression: '1', branches: ["
        + ", ".join(f"{{ when: {w}, target_node: done }}" for w in range(per + (i < extra)))
        + "] }\n" for i in range(conditions))
    edges = "".join(f"    - {{ from: start, to: c{i} }}\n" for i in range(conditions))
    return f"{HEAD}    - {{ id: done, type: output }}\n{nodes}  edges:\n{edges}"


GENERATED = {"nodes-501": chain(501), "nodes-500": chain(500),
             "edges-2001": routes(2001), "edges-2000": routes(2000)}
# (refused file, the control that loads, the rule, the 1-based line:col of every finding)
PAIRS = [
    ("nodes-501", "nodes-500", "admission-limit", ["505:13"]),
    ("edges-2001", "edges-2000", "admission-limit", ["47:3"]),
    ("admission-limit/positive-fan-out", "admission-limit/negative-fan-out", "admission-limit",
     ["6:13"]),
    ("invalid-value/positive-ceilings", "invalid-value/negative-ceilings", "invalid-value",
     ["5:17", "11:21", "13:55", "18:11", "22:67"]),
    ("duplicate-id/positive-parallel-of", "duplicate-id/negative-parallel-of", "duplicate-id",
     ["7:54"]),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ceilings")
    for name, text in GENERATED.items():
        (folder / f"{name}.relavium.yaml").write_text(text, encoding="utf-8")
    return folder


def fixture(folder: Path, name: str) -> Path:
    return (folder if name in GENERATED else RULES) / f"{name}.relavium.yaml"


@pytest.fixture(scope="module")
def findings(folder: Path) -> dict[str, list[tuple[str, str]]]:
    """Fixture name → (rule, line:col) of each finding: one `check` run for every file."""
    names = [name for pair in PAIRS for name in pair[:2]]
    paths = [fixture(folder, name) for name in names]
    result = relavium_lsp("check", "--no-config", "--format", "json", *map(str, paths))
    assert result.returncode == 1, result.stderr
    found: dict[str, list[tuple[str, str]]] = {name: [] for name in names}
    by_path = dict(zip(map(str, paths), names, strict=True))
    for finding in json.loads(result.stdout):
        start = finding["range"]["start"]
        found[by_path[finding["path"]]].append(
            (finding["code"], f"{start['line'] + 1}:{start['character'] + 1}"))
    return found


@pytest.mark.parametrize(("refused", "loads", "rule", "where"), PAIRS,
                         ids=[pair[0] for pair in PAIRS])
def test_one_past_the_ceiling_is_refused_and_the_ceiling_loads(
        findings: dict[str, list[tuple[str, str]]], refused: str, loads: str, rule: str,
        where: list[str]) -> None:
    assert sorted(findings[refused]) == sorted((rule, at) for at in where)
    assert findings[loads] == []


def test_a_ceiling_message_names_the_count_and_the_limit(folder: Path) -> None:
    result = relavium_lsp("check", "--no-config", str(fixture(folder, "edges-2001")))
    assert "wires 2001 edges (40 in edges, 0 parallel_of members, 1961 condition branches" in (
        result.stdout)
    assert "more than 2000" in result.stdout


def test_the_json_schema_carries_the_per_field_ceilings() -> None:
    result = relavium_lsp("schema")
    assert result.returncode == 0, result.stderr
    workflow = json.loads(result.stdout)["properties"]["workflow"]["properties"]
    assert workflow["max_parallel"]["maximum"] == 64
    agent = workflow["agents"]["items"]["else"]["properties"]
    assert agent["retry"]["properties"]["max"]["maximum"] == 10
    assert agent["fallback_chain"]["maxItems"] == 5
    assert agent["fallback_chain"]["items"]["properties"]["max_attempts"]["maximum"] == 10


def test_reading_a_condition_s_output() -> None:
    """A condition stores no output (`packages/core/src/engine/node-handlers/condition.ts`
    returns `{ kind: 'branch', selected }`, HodeTech/Relavium@839f2bd; `#completedOutputs()` in
    `engine.ts` records it as `undefined`; ADR-0091's amendment of 2026-09-03): a property read of
    it fails the node (error), a bare read is `undefined` (warning), a template reference resolves
    to no value (`unresolved_reference`, `interpolation/resolve.ts`; error) or to its default
    (warning). The control reads the condition's own source instead and is clean."""
    folder = RULES / "condition-output-read"
    result = relavium_lsp("check", "--no-config", "--format", "json",
                          str(folder / "positive.relavium.yaml"),
                          str(folder / "negative.relavium.yaml"))
    found = [(f["path"].rsplit("/", 1)[-1], f["code"], f["severity"],
              f["range"]["start"]["line"] + 1) for f in json.loads(result.stdout)]
    assert found == [
        ("positive.relavium.yaml", "condition-output-read", "error", 16),
        ("positive.relavium.yaml", "condition-output-read", "warning", 17),
        ("positive.relavium.yaml", "condition-output-read", "error", 21),
        ("positive.relavium.yaml", "condition-output-read", "warning", 21),
    ]


@pytest.mark.parametrize(("expression", "dereferenced"), [
    ('run.outputs["route"].label', [True]),
    ("run.outputs.route(1)", [True]),
    ("run.outputs.route.x && 1", [True]),
    ("run.outputs.route", [False]),
    ("run.outputs.route?.x", [False]),
    ("typeof run.outputs.route", [False]),
    ("ok && run.outputs.route.x", [False]),
    ("ok ? run.outputs.route.x : 1", [False]),
    ("(() => run.outputs.route.x)()", [False]),
    ("run.outputs.a.x + (ok ?? run.outputs.b.x) + run.outputs.c.x", [True, False, True]),
])
def test_only_an_unconditional_property_read_is_certain_to_throw(
        expression: str, dereferenced: list[bool]) -> None:
    from analysis.document.expressions import analyze_expression
    reads = analyze_expression(expression).output_reads
    assert [read.dereferenced for read in reads] == dereferenced
