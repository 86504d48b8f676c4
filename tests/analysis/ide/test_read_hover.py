"""Hover on a read: its type and where the type comes from, in expressions and templates;
nothing off a read, in strings, on a shadowed binding, or where the type is unknown."""

from __future__ import annotations

from analysis.checks.analyze import analyze
from analysis.ide.read_hover import read_hover
from analysis.ide.typed_reads import typed_reads
from tests.analysis.ide.typed_workflow import TYPED
from tests.conftest import EXAMPLES


def hover(text: str, needle: str, back: int = 1) -> tuple[str, str] | None:
    """The hover's text and the characters its span covers, with the cursor `back` characters
    before the end of `needle`'s first occurrence."""
    result = analyze(text)
    assert result.workflow is not None
    found = read_hover(result.workflow, typed_reads(result.workflow, result.graph),
                       text.index(needle) + len(needle) - back)
    return None if found is None else (found[0], text[found[1][0]:found[1][1]])


def test_a_property_read_shows_its_type_and_its_schema() -> None:
    assert hover(TYPED, "labels[0].na") == (
        "`name: string | undefined` — classify's output_schema", "name")
    assert hover(TYPED, "labels[0") == (
        "`labels[0]: { name?: string; score?: number; [key: string]: unknown } | undefined` — "
        "classify's output_schema", "0")


def test_a_template_read() -> None:
    assert hover(TYPED, '{{ run.outputs["classify"].top') == (
        "`topic: string | undefined` — classify's output_schema", "topic")
    assert hover(TYPED, "{{ inputs.iss") == ("`issue: string` — the declared inputs", "issue")


def test_branches_by_index() -> None:
    assert hover(TYPED, "branches[0].si") == (
        "`size: number` — branch 0, inferred from left's transform", "size")
    assert hover(TYPED, "branches[1") == (
        "`branches[1]: { note: string }` — branch 1, inferred from right's transform", "1")


def test_quiet_where_nothing_is_read_as_written() -> None:
    shadowed = TYPED.replace("'run.outputs[\"classify\"].labels[0].name'",
                             "'[1].map((run) => run.outputs.classify.topic)'")
    assert hover(shadowed, "(run) => run.outputs.classify.top") is None
    quoted = TYPED.replace("'run.outputs[\"classify\"].labels[0].name'",
                           "'\"run.outputs.classify.topic\"'")
    assert hover(quoted, "'\"run.outputs.classify.top") is None
    # `loose` parses JSON: its declared schema is open, so an undeclared key is unknown
    unknown = TYPED.replace("'run.outputs[\"classify\"].labels[0].name'",
                            "'run.outputs.loose.other'")
    assert hover(unknown, "loose.oth") is None
    assert hover(unknown, "outputs.loose") is not None
    assert hover(TYPED, "run.outputs.classify.lab", back=22) is None  # on `run` itself
    assert hover(TYPED, "run.outputs.classify.lab") is not None


def test_every_offset_answers_without_raising() -> None:
    result = analyze(TYPED)
    assert result.workflow is not None
    reads = typed_reads(result.workflow, result.graph)
    answered = [read_hover(result.workflow, reads, offset) for offset in range(len(TYPED) + 1)]
    # every hover is a type line over characters of a read, never a value
    shown = [found for found in answered if found is not None]
    assert shown and all(" — " in text and "`" in text for text, _ in shown)


def test_a_secret_read_in_an_expression_has_no_type() -> None:
    # the sandbox denies it (secret_context): the declaration's hover says so, no type line
    text = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8").replace(
        "inputs.customer_tier ?? \"free\"", "inputs.crm_token ?? \"free\"")
    assert hover(text, "inputs.crm_tok") is None
    assert hover(text, "{{ inputs.crm_tok") is None  # a context value: no node reads it here
    prompt = text.replace("Ticket: {{ inputs.ticket_text }}", "Ticket: {{ inputs.crm_token }}")
    assert hover(prompt, "Ticket: {{ inputs.crm_tok") is None  # a node's template may not
    assert hover(text, "inputs.ticket_te") is not None
