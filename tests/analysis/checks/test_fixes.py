"""The fixes a rule attaches to its diagnostic: applied to the text, the re-analysed workflow no
longer has the diagnostic (and reads as intended); where a fix would be wrong, none is offered."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.checks.analyze import AnalysisResult, analyze
from analysis.checks.suppression import suppression_fixes
from analysis.diagnostics import Diagnostic, Fix
from analysis.document.source import SourceText
from tests.conftest import EXAMPLES, FIXTURES

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")


def only(result: AnalysisResult, rule: str) -> Diagnostic:
    matching = [d for d in result.diagnostics if d.rule == rule]
    assert len(matching) == 1, result.diagnostics
    return matching[0]


def titled(fixes: tuple[Fix, ...] | list[Fix], title: str) -> Fix:
    found = [fix for fix in fixes if fix.title == title]
    assert found, [fix.title for fix in fixes]
    return found[0]


def applied(text: str, fix: Fix) -> str:
    """`text` with the fix's edits made (last first, so the earlier ranges stay valid)."""
    source = SourceText(text)
    spans = sorted(
        ((source.offset(e.range.start), source.offset(e.range.end), e.new_text) for e in fix.edits),
        reverse=True,
    )
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text


def fixed(text: str, rule: str, title: str) -> str:
    """The text once the fix `title` of the one `rule` diagnostic is applied; the diagnostic is
    gone from the re-analysis."""
    fix = titled(only(analyze(text), rule).fixes, title)
    result = applied(text, fix)
    assert [d for d in analyze(result).diagnostics if d.rule == rule] == []
    return result


@pytest.mark.parametrize(
    ("written", "rule"),
    [("jmespath", "reserved-expression-type"), ("python", "unknown-expression-type")],
)
def test_expression_type_becomes_js_or_goes(written: str, rule: str) -> None:
    text = EXAMPLE.replace(
        "      expression: |", f"      expression_type: {written}\n      expression: |")
    assert "      expression_type: js\n      expression: |" in fixed(
        text, rule, "Use `expression_type: js`")
    assert fixed(text, rule, "Remove `expression_type` (js is the default)") == EXAMPLE
    assert [fix.safe for fix in only(analyze(text), rule).fixes] == [False, False]


@pytest.mark.parametrize(("written", "safe"),
                         [("JS", True), ("javascript", True), ("ECMAScript", True),
                          ("python", False)])
def test_js_is_the_safe_fix_only_for_javascript_otherwise_spelt(written: str, safe: bool) -> None:
    """`js` is the one expression_type the engine loads (packages/shared/src/node.ts,
    ExpressionTypeSchema = z.enum(['js']), 839f2bd and d8400fc): for a key naming JavaScript it
    is the only answer; for another language the expression may be written in it."""
    text = EXAMPLE.replace(
        "      expression: |", f"      expression_type: {written}\n      expression: |")
    use_js, remove = only(analyze(text), "unknown-expression-type").fixes
    assert (use_js.title, use_js.safe) == ("Use `expression_type: js`", safe)
    assert not remove.safe


def test_an_expression_type_in_a_flow_mapping_goes_with_its_comma() -> None:
    text = EXAMPLE.replace(
        "    - id: history\n      type: transform\n      transform: '({ topic",
        "    - { id: history, type: transform, expression_type: jsonlogic, transform: '({ topic",
    ).replace('?? "free" })\'', '?? "free" })\' }')
    result = fixed(
        text, "reserved-expression-type", "Remove `expression_type` (js is the default)")
    assert "    - { id: history, type: transform, transform: '({ topic" in result


UNORDERED = EXAMPLE.replace(
    'tier: inputs.customer_tier ?? "free" })\'',
    'tier: inputs.customer_tier ?? "free", mood: run.outputs.sentiment })\'',
)
ADD_EDGE = "Add an edge from sentiment to history"


def test_an_unordered_read_gets_its_edge_in_a_block_list() -> None:
    result = fixed(UNORDERED, "unordered-output-read", ADD_EDGE)
    assert result.endswith(
        "    - { from: draft-reply, to: done }\n    - { from: sentiment, to: history }\n")


def test_an_unordered_read_gets_its_edge_in_a_flow_list_and_with_crlf() -> None:
    head, _, edges = UNORDERED.partition("  edges:\n")
    flow = [line.strip()[2:] for line in edges.splitlines()]
    text = head + "  edges: [" + ", ".join(flow) + "]\n"
    assert fixed(text, "unordered-output-read", ADD_EDGE).endswith(
        "{ from: draft-reply, to: done }, { from: sentiment, to: history }]\n")
    crlf = UNORDERED.replace("\n", "\r\n")
    assert fixed(crlf, "unordered-output-read", ADD_EDGE).endswith(
        "    - { from: draft-reply, to: done }\r\n    - { from: sentiment, to: history }\r\n")


def test_no_edge_when_it_would_close_a_cycle() -> None:
    # route reads its own descendant history: an edge history → route would be a cycle
    text = EXAMPLE.replace(
        'run.outputs["classify"].severity >= (inputs.severity_floor ?? 7)',
        'run.outputs["classify"].severity >= (run.outputs.history ?? 7)',
    )
    assert only(analyze(text), "unordered-output-read").fixes == ()


def test_unknown_node_offers_the_rules_own_suggestion_only() -> None:
    text = EXAMPLE.replace(
        "{ from: combine, to: draft-reply }", "{ from: combine, to: draft-replly }")
    (fix,) = only(analyze(text), "unknown-node").fixes
    assert fix.title == "Change `draft-replly` to `draft-reply`" and not fix.safe
    assert fixed(text, "unknown-node", fix.title) == EXAMPLE
    # the node part of a quoted `id:handle` source
    handle = EXAMPLE.replace("from: 'route:urgent'", "from: 'rout:urgent'")
    assert fixed(handle, "unknown-node", "Change `rout` to `route`") == EXAMPLE


def test_unknown_node_without_a_close_id_has_no_fix() -> None:
    text = EXAMPLE.replace("{ from: combine, to: draft-reply }", "{ from: combine, to: zzz }")
    assert only(analyze(text), "unknown-node").fixes == ()


def test_unknown_agent_offers_the_closest_agent() -> None:
    text = EXAMPLE.replace("writer", "reviewer")
    typo = text.replace("agent_ref: reviewer", "agent_ref: reveiwer")
    assert fixed(typo, "unknown-agent", "Change `reveiwer` to `reviewer`") == text


def test_unknown_input_reference_offers_the_closest_input() -> None:
    text = EXAMPLE.replace("ticket_text", "doc_text")
    typo = text.replace("Ticket: {{ inputs.doc_text }}", "Ticket: {{ inputs.doc_txt }}")
    assert fixed(typo, "unknown-template-reference", "Change `doc_txt` to `doc_text`") == text


def test_unknown_reference_in_a_double_quoted_scalar_keeps_its_escapes() -> None:
    text = EXAMPLE.replace(
        "message_template: 'Urgent {{ run.outputs[\"topic\"] }} ticket needs a human.'",
        'message_template: "Urgent {{ run.outputs[\\"topc\\"] }}\\t ticket."',
    )
    result = fixed(text, "unknown-template-reference", "Change `topc` to `topic`")
    assert 'message_template: "Urgent {{ run.outputs[\\"topic\\"] }}\\t ticket."' in result


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('run.outputs["classify"].severity >= (inputs.severity_floor ?? 7)',
         'run.outputs["classify"].severity >= {{ inputs.severity_floor }}'),
        ('tier: inputs.customer_tier ?? "free"', 'tier: {{ inputs.customer_tier }} ?? "free"'),
    ],
    ids=["block scalar", "single-quoted"],
)
def test_template_braces_in_an_expression_become_the_variable(before: str, after: str) -> None:
    text = EXAMPLE.replace(before, after)
    (fix,) = only(analyze(text), "template-in-expression").fixes
    assert fix.safe
    result = fixed(text, "template-in-expression", fix.title)
    assert after.replace("{{ ", "").replace(" }}", "") in result
    assert [d.rule for d in analyze(result).diagnostics] == []


DOTTED = EXAMPLE.replace(
    "Urgent {{ run.outputs[\"topic\"] }}", "Urgent {{ run.outputs.topic }}")
BRACKETS = 'Write `run.outputs["topic"]`'


def test_a_dotted_output_read_in_a_template_becomes_the_bracket_form() -> None:
    assert fixed(DOTTED, "invalid-template", BRACKETS) == EXAMPLE


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ('"Urgent {{ run.outputs.topic }}"',
         '"Urgent {{ run.outputs[\\"topic\\"] }}"'),
        # plain: it may sit in a flow collection, where `[` and `"` need quotes
        ("Urgent {{ run.outputs.topic }}",
         "'Urgent {{ run.outputs[\"topic\"] }}'"),
    ],
    ids=["double-quoted", "plain"],
)
def test_the_bracket_form_is_written_for_the_scalars_quoting(style: str, expected: str) -> None:
    written = "'Urgent {{ run.outputs[\"topic\"] }} ticket needs a human.'"
    text = EXAMPLE.replace(written, style)
    assert f"message_template: {expected}\n" in fixed(text, "invalid-template", BRACKETS)


def test_no_bracket_form_where_its_data_edge_would_close_a_cycle() -> None:
    text = EXAMPLE.replace(
        "Classify this ticket (tier", "Classify {{ run.outputs.escalate }} (tier")
    assert only(analyze(text), "invalid-template").fixes == ()


def test_a_folded_plain_scalar_is_not_requoted() -> None:
    written = "'Urgent {{ run.outputs[\"topic\"] }} ticket needs a human.'"
    text = EXAMPLE.replace(
        written, "Urgent {{ run.outputs.topic }}\n        ticket needs a human.")
    assert only(analyze(text), "invalid-template").fixes == ()


def test_the_suppression_fixes_silence_the_diagnostic() -> None:
    text = EXAMPLE.replace(
        "{ from: combine, to: draft-reply }", "{ from: combine, to: draft-replly }")
    result = analyze(text)
    diagnostic = only(result, "unknown-node")
    assert result.workflow is not None
    fixes = suppression_fixes(diagnostic, result.source, result.document, result.workflow)
    assert [fix.title for fix in fixes] == [
        "Ignore unknown-node on this line", "Ignore unknown-node for this edge"]
    for fix in fixes:
        assert fix.safe
        again = analyze(applied(text, fix))
        assert [d.rule for d in again.diagnostics] == []
        assert [d.rule for d in again.suppressed] == ["unknown-node"]


POSITIVE_FIXTURES = sorted((FIXTURES / "rules").glob("*/positive*.relavium.yaml"))


@pytest.mark.parametrize("path", POSITIVE_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fix_in_the_rule_fixtures_keeps_the_yaml_and_removes_a_finding(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = analyze(text).diagnostics
    for diagnostic in found:
        before = [d for d in found if d.rule == diagnostic.rule]
        for fix in diagnostic.fixes:
            after = analyze(applied(text, fix)).diagnostics
            assert "yaml-syntax" not in {d.rule for d in after}, fix
            assert len([d for d in after if d.rule == diagnostic.rule]) < len(before), fix
