"""Typed completion: after a read path, the members its value's type declares, with the type as
detail and the schema's description as documentation; nothing invented where the type is open
or unknown. Half-typed text is read from the live lines, the types from the last good model."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.checks.analyze import AnalysisResult, analyze
from analysis.ide.candidates import Candidate
from analysis.ide.completion import complete
from tests.analysis.ide.typed_workflow import TYPED
from tests.conftest import EXAMPLES

MODEL = analyze(TYPED)
REPORT = "transform: 'run.outputs[\"classify\"].labels[0].name'"


def in_report(typed: str, result: AnalysisResult = MODEL) -> tuple[str, list[Candidate]]:
    """Completion at the end of `typed`, written as `report`'s transform (served from the
    model of the untouched file, as while typing)."""
    text = TYPED.replace(REPORT, f"transform: '{typed}")
    return text, complete(result, text, text.index(typed) + len(typed))


def details(found: list[Candidate]) -> dict[str, str]:
    return {candidate.label: candidate.detail for candidate in found}


def test_a_node_output_offers_its_schema_properties_with_their_types() -> None:
    for typed in ('run.outputs["classify"].', "run.outputs.classify.", "run.outputs?.classify?.",
                  "run?.outputs.classify.t"):
        _, found = in_report(typed)
        assert details(found) == {
            "severity": '"low" | "high"',
            "topic": "string (optional)",
            "ticket-id": "number (optional)",
            "labels": "{ name?: string; score?: number; [key: string]: unknown }[]",
        }, typed


def test_a_key_a_dot_cannot_reach_is_rewritten_to_the_bracket_form() -> None:
    text, found = in_report("run.outputs.classify.tic")
    (ticket,) = [c for c in found if c.label == "ticket-id"]
    assert ticket.text == '["ticket-id"]'
    assert text[ticket.replace[0]:ticket.replace[1]] == ".tic"
    assert ticket.filter == ".ticket-id"
    text, found = in_report("run.outputs.classify?.tic")
    (ticket,) = [c for c in found if c.label == "ticket-id"]
    assert text[ticket.replace[0]:ticket.replace[1]] == "tic"  # `?.` stays: `?.["ticket-id"]`


def test_inside_a_bracket_every_key_is_offered_quoted() -> None:
    text, found = in_report('run.outputs.classify["tic')
    (ticket,) = [c for c in found if c.label == "ticket-id"]
    assert ticket.text == 'ticket-id"]'
    assert text[ticket.replace[0]:ticket.replace[1]] == "tic"


def test_array_elements_and_length() -> None:
    _, found = in_report("run.outputs.classify.labels[0].")
    assert details(found) == {"name": "string (optional)", "score": "number (optional)"}
    _, found = in_report("run.outputs.classify.labels.")
    assert list(details(found)) == ["length"]


def test_an_agent_without_output_schema_is_text() -> None:
    _, found = in_report("run.outputs.notes.")
    assert list(details(found)) == ["length"]


def test_unknown_and_open_values_offer_only_declared_names() -> None:
    # `loose`'s expression says nothing (JSON.parse): its declared, open schema stands; its one
    # declared property, no invented ones
    _, found = in_report("run.outputs.loose.")
    assert list(details(found)) == ["size"]
    # an open object's undeclared key is unknown: nothing to offer below it
    assert in_report("run.outputs.loose.other.")[1] == []
    # `left`'s output is inferred from its expression
    assert details(in_report("run.outputs.left.")[1]) == {"size": "number"}
    assert in_report("run.outputs.classify.labels[0].extra.")[1] == []
    # a number has no members worth offering
    assert in_report("run.outputs.loose.size.")[1] == []


def test_inputs_members() -> None:
    _, found = in_report("inputs.issue.")
    assert list(details(found)) == ["length"]


def test_nothing_in_strings_or_comments() -> None:
    assert in_report('"run.outputs.classify.')[1] == []
    assert in_report("1 // run.outputs.classify.")[1] == []


def test_branches_by_index_in_a_merge_fn() -> None:
    text = TYPED.replace("merge_fn: '[branches[0].size, branches[1].note]'",
                         "merge_fn: 'branches[1].")
    found = complete(MODEL, text, text.index("branches[1].") + len("branches[1]."))
    assert details(found) == {"note": "string"}


def test_templates_offer_the_same_members_without_length() -> None:
    needle = '{{ run.outputs["classify"].'
    text = TYPED.replace('{{ run.outputs["classify"].topic }}', needle)
    found = complete(MODEL, text, text.index(needle) + len(needle))
    assert set(details(found)) == {"severity", "topic", "ticket-id", "labels"}
    (ticket,) = [c for c in found if c.label == "ticket-id"]
    assert ticket.text == "ticket-id"  # the template path reads `-` in a dotted name
    needle = '{{ run.outputs["classify"].labels.'
    text = TYPED.replace('{{ run.outputs["classify"].topic }}', needle)
    assert complete(MODEL, text, text.index(needle) + len(needle)) == []
    needle = '{{ run.outputs["classify"].labels[0].'
    text = TYPED.replace('{{ run.outputs["classify"].topic }}', needle)
    assert set(details(complete(MODEL, text, text.index(needle) + len(needle)))) == {
        "name", "score"}


def test_an_enum_input_shows_its_values() -> None:
    text = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
    result = analyze(text)
    typing = text.replace("inputs.customer_tier ?? \"free\"", "inputs.cus")
    found = details(complete(result, typing, typing.index("inputs.cus") + len("inputs.cus")))
    assert found["customer_tier"] == 'string input · "free" | "pro" | "enterprise"'
    assert found["ticket_text"] == "string input"  # a plain type: its declared name says it
    assert found["severity_floor"] == "number input"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='run.outputs["classify"]?[0]inptsbrach\'`/ *-{}', max_size=40))
def test_half_typed_reads_never_raise(typed: str) -> None:
    for place in ("transform: '", 'prompt_template: \'Notes on {{ '):
        text = TYPED.replace(REPORT, f"transform: '{typed}") if place == "transform: '" else \
            TYPED.replace("prompt_template: 'Notes on {{ run.outputs[\"classify\"].topic }}'",
                          f"prompt_template: 'Notes on {{{{ {typed}")
        complete(MODEL, text, text.index(typed, text.index(place)) + len(typed))


def test_crlf_and_lf_lines_complete_alike() -> None:
    # the cursor's line is found with str methods without a `\r`, with the YAML line breaks
    # (`\r\n`, `\r`, `\n`) otherwise: both must read the same field and prefix
    text, found = in_report("run.outputs.classify.")
    for newline in ("\r\n", "\r"):
        crlf = text.replace("\n", newline)
        at = crlf.index("run.outputs.classify.", crlf.index("id: report")) + 21
        assert [(c.label, c.detail, crlf[c.replace[0]:c.replace[1]]) for c in
                complete(MODEL, crlf, at)] == [
            (c.label, c.detail, text[c.replace[0]:c.replace[1]]) for c in found]


def test_a_secret_input_offers_nothing_in_an_expression() -> None:
    text = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
    result = analyze(text)
    typing = text.replace("inputs.customer_tier ?? \"free\"", "inputs.crm_token.")
    assert complete(result, typing, typing.index("crm_token.") + len("crm_token.")) == []
    typing = text.replace("inputs.customer_tier ?? \"free\"", "inputs.ticket_text.")
    assert labels(complete(result, typing, typing.index("ticket_text.") + 12)) == ["length"]


def labels(found: list[Candidate]) -> list[str]:
    return [candidate.label for candidate in found]
