"""unknown-template-reference on a context value that reads a key declared at or after its own
entry. The engine resolves the context once when the run starts, in declared order, each entry
seeing the inputs and the entries before it, and fails the run (`validation`) on a reference
that resolves to nothing; `| default(…)` replaces only undefined or null
(packages/core/src/interpolation/resolve.ts `resolveContext`, `stringify`; engine.ts
`#resolveContextOrFail`, HodeTech/Relavium 839f2bd). The dry run models the same start, so every
case is also run: the error's file fails before any node, the warning's and the control's run."""

import json
from pathlib import Path

import pytest

from analysis.checks.analyze import analyze
from analysis.diagnostics import Severity
from tests.conftest import relavium_lsp

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: demo
  context:
{context}
  nodes:
    - {{ id: start, type: input }}
    - {{ id: done, type: output }}
  edges:
    - {{ from: start, to: done }}
"""
LATER = ("    - { key: first, value: 'x {{ ctx.later }}' }\n"
         "    - { key: later, value: 'y' }")
DEFAULTED = ("    - { key: first, value: 'x {{ ctx.later | default(\"z\") }}' }\n"
             "    - { key: later, value: 'y' }")
IN_ORDER = ("    - { key: later, value: 'y' }\n"
            "    - { key: first, value: 'x {{ ctx.later }}' }")


def findings(context: str) -> list[tuple[Severity, str, int]]:
    result = analyze(WORKFLOW.format(context=context), "w.relavium.yaml")
    return [(d.severity, d.message, d.range.start.line) for d in result.diagnostics
            if d.rule == "unknown-template-reference"]


def test_a_key_declared_later_is_an_error_at_the_reference_that_says_to_move_it() -> None:
    [(severity, message, line)] = findings(LATER)
    assert severity == Severity.ERROR and line == 4
    assert "reads `later`, declared after this entry" in message
    assert message.endswith("move `later` above this entry")
    assert "did you mean" not in message


def test_a_defaulted_read_of_a_later_key_is_a_warning() -> None:
    [(severity, message, _)] = findings(DEFAULTED)
    assert severity == Severity.WARNING and "always resolves to its default" in message


def test_the_same_read_in_declared_order_is_clean() -> None:
    assert findings(IN_ORDER) == []


def test_a_node_template_may_read_any_context_key() -> None:
    # nodes run after the whole context is resolved: order does not matter there
    text = WORKFLOW.format(context=LATER.replace("{{ ctx.later }}", "x")).replace(
        "{ id: done, type: output }",
        "{ id: gate, type: human_gate, gate_type: approval, timeout_ms: 60000,"
        " message_template: '{{ ctx.first }}' }\n    - { id: done, type: output }").replace(
        "- { from: start, to: done }",
        "- { from: start, to: gate }\n    - { from: gate, to: done }")
    assert [d.rule for d in analyze(text, "w.relavium.yaml").diagnostics] == []


@pytest.mark.parametrize(("context", "runs"), [(LATER, False), (DEFAULTED, True),
                                               (IN_ORDER, True)])
def test_the_dry_run_agrees(tmp_path: Path, context: str, runs: bool) -> None:
    path = tmp_path / "w.relavium.yaml"
    path.write_text(WORKFLOW.format(context=context), encoding="utf-8")
    answer = json.loads(relavium_lsp("run", str(path), "--format", "json").stdout)
    assert ("error" not in answer) is runs
    assert answer["ok"] is runs
