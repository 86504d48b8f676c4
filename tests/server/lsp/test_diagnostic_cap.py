"""At most MAX_DIAGNOSTICS diagnostics of a document reach the client, then one
`too-many-problems` warning counts the rest: a file with an unknown key on each of 128,000 lines
took the event loop 8 s to convert (and the analysis process 3.4 s to send back)."""

from __future__ import annotations

from analysis.checks.analyze import analyze
from server.lsp.diagnostics import MAX_DIAGNOSTICS, TOO_MANY_PROBLEMS, to_lsp_diagnostics
from server.lsp.documents import Snapshot
from server.lsp.settings import Settings, parse_settings
from server.lsp.worker.main import diagnosis_of

HEAD = "schema_version: '1.0'\nworkflow:\n  id: flood\n  nodes:\n    - { id: start, type: input }\n"


def flood(keys: int) -> str:
    """A transform with `keys` unknown keys, one per line, each an `unknown-key` warning."""
    lines = "".join(f"      k{index}: 1\n" for index in range(keys))
    return HEAD + "    - id: t\n      type: transform\n      transform: '1'\n" + lines


def settings(rules: dict[str, str]) -> Settings:
    parsed, problems = parse_settings({"rules": rules})
    assert not problems
    return parsed


def test_the_first_diagnostics_by_position_and_a_count_of_the_rest() -> None:
    text = flood(MAX_DIAGNOSTICS + 250)
    result = analyze(text)
    total = len(result.diagnostics)
    assert total > MAX_DIAGNOSTICS + 250
    shown = to_lsp_diagnostics(Snapshot("file:///f.relavium.yaml", 1, text, result, "utf-16"),
                               Settings())
    assert len(shown) == MAX_DIAGNOSTICS + 1
    summary = shown[-1]
    assert summary.code == TOO_MANY_PROBLEMS
    assert f"{total - MAX_DIAGNOSTICS:,} more problems" in summary.message
    lines = [diagnostic.range.start.line for diagnostic in shown[:-1]]
    assert lines == sorted(lines)


def test_rules_turned_off_do_not_count() -> None:
    text = flood(MAX_DIAGNOSTICS + 250)
    snapshot = Snapshot("file:///f.relavium.yaml", 1, text, analyze(text), "utf-16")
    shown = to_lsp_diagnostics(snapshot, settings({"unknown-key": "off"}))
    assert shown and all(diagnostic.code != "unknown-key" for diagnostic in shown)
    assert all(diagnostic.code != TOO_MANY_PROBLEMS for diagnostic in shown)


def test_the_analysis_process_sends_what_can_be_shown_and_counts_the_rest() -> None:
    text = flood(MAX_DIAGNOSTICS + 250)
    result = analyze(text)
    per_rule = {d.rule for d in result.diagnostics}
    diagnosis = diagnosis_of(result, MAX_DIAGNOSTICS)
    kept = diagnosis.result.diagnostics
    assert [d for d in kept if d.rule == "unknown-key"] == [
        d for d in result.diagnostics if d.rule == "unknown-key"][:MAX_DIAGNOSTICS]
    assert diagnosis.omitted == {"unknown-key": MAX_DIAGNOSTICS + 250 - MAX_DIAGNOSTICS}
    assert {d.rule for d in kept} == per_rule
    assert diagnosis.result.workflow is None and diagnosis.result.document.root is None
    # the client sees the same whichever process analysed the file
    whole = Snapshot("file:///f.relavium.yaml", 1, text, result, "utf-16")
    sent = Snapshot("file:///f.relavium.yaml", 1, text, diagnosis.result, "utf-16",
                    has_model=False, omitted=diagnosis.omitted)
    for chosen in (Settings(), settings({"unknown-key": "off"})):
        assert to_lsp_diagnostics(sent, chosen) == to_lsp_diagnostics(whole, chosen)
