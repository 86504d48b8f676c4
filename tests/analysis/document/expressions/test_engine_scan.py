"""The emulation of the engine's parse-time `run.outputs` scan: what it sees, where it gives up.

Each expected answer was confirmed against the engine's own scan run under Node during
development (200,000 generated expressions, no disagreement); 600 of those answers are recorded in
fixtures/engine_scan_answers.json.
"""

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis.document.expressions.engine_scan import (
    _literal_end,
    engine_output_reads,
    mask_literals,
)


def ids(expression: str) -> list[tuple[str, str]]:
    return [(read.node_id, read.form) for read in engine_output_reads(expression)]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('run.outputs["classify"]', [("classify", "bracket")]),
        ("run.outputs['classify']", [("classify", "bracket")]),
        ("run.outputs.classify", [("classify", "dot")]),
        ('run . outputs [ "a" ]', [("a", "bracket")]),
        ("run\n.outputs\t.a", [("a", "dot")]),
        ('run?.outputs?.["a"]', [("a", "bracket")]),
        ("run?.outputs?.a", [("a", "dot")]),
        ('run.outputs["kebab-id"].x > 1', [("kebab-id", "bracket")]),
        ("run.outputs.$x", [("$x", "dot")]),
        # Each occurrence is reported (the engine deduplicates ids; its verdict is the same).
        ("run.outputs.a + run.outputs.a", [("a", "dot"), ("a", "dot")]),
        ('x + /* c */ run.outputs["a"]', [("a", "bracket")]),
        ('run.outputs["a"] // trailing comment', [("a", "bracket")]),
    ],
)
def test_every_form_the_engine_recognises(expression: str, expected: list[tuple[str, str]]) -> None:
    assert ids(expression) == expected


@pytest.mark.parametrize(
    "expression",
    [
        'run.outputs["a"] / 2',  # any `/` that is not a comment: division
        'run.outputs["a"] && /x/.test(y)',  # ... or a regex
        'run.outputs["a"] + `${x}`',  # `${` inside a template
        'run.outputs["a"] <!-- html comment',
        'run.outputs["a"] --> 1',
        'run.outputs["a"] + r\\u0075n',  # a backslash in code (identifier escape)
        'run.outputs["a"] + "unterminated',
        'run.outputs["a"] /* unterminated',
        'run.outputs["a"] + `unterminated',
        'run.outputs["a"] + ((run) => 1)',  # a `run` not followed by `.`: a possible rebinding
        'run.outputs["a"] + { run }',
        'typeof run === "object" && run.outputs["a"]',
    ],
)
def test_each_give_up_trigger_silences_the_whole_expression(expression: str) -> None:
    assert ids(expression) == []


@pytest.mark.parametrize(
    "expression",
    [
        '"run.outputs.a"',  # in a string
        "`run.outputs.a`",  # in template text
        "// run.outputs.a",
        "/* run.outputs.a */ 1",
        "foo.run.outputs.a",  # a property, not the scope's run
        "foo . run.outputs.a",
        "foo?.run.outputs.a",
        "çrun.outputs.a",  # the tail of a longer identifier
        "x.çrun.outputs.a",
        "run.outputs[k]",  # computed key
        'run.outputs["a" + b]',
        "run.outputs[`a`]",  # template key
        'run.outputs["a\\"b"]',  # a key with a quote or backslash
        "run.outputs['']",
    ],
)
def test_what_the_engine_does_not_count_as_a_read(expression: str) -> None:
    assert ids(expression) == []


def test_backslash_inside_a_string_is_not_a_give_up() -> None:
    # Only code is searched for a backslash: the masked string hides it.
    assert ids('run.outputs["a"] + "\\n"') == [("a", "bracket")]


def test_key_span_is_in_code_points() -> None:
    expression = 'é𝑥 + run.outputs["ü"]'
    (read,) = engine_output_reads(expression)
    assert expression[read.key_start : read.key_end] == "ü"
    assert expression[read.access_start : read.access_end] == 'run.outputs["ü"]'


def test_astral_character_before_run_is_free_to_the_engine() -> None:
    # The engine walks UTF-16 code units: a lone surrogate is not an identifier character there,
    # so it accepts this (its quirk, reproduced: the engine refuses the file).
    assert ids("𝑥 run.outputs.a") == [("a", "dot")]


def test_identifier_continue_character_after_key_is_not_part_of_the_dot_key() -> None:
    # The engine's dot pattern stops at the first non-ASCII character.
    assert ids("run.outputs.abé") == [("ab", "dot")]


def test_mask_keeps_length_and_blanks_literals() -> None:
    assert mask_literals('a"b"c') == "a\0\0\0c"
    assert mask_literals("a // x\nb") == "a \0\0\0\0\nb"
    assert mask_literals("a / b") is None


ANSWERS = Path(__file__).parent / "fixtures" / "engine_scan_answers.json"


def engine_view(expression: str) -> list[list[str]]:
    """The engine's own output shape: ids deduplicated, bracket reads first, then dot reads."""
    seen: set[str] = set()
    answer = []
    for form in ("bracket", "dot"):
        for read in engine_output_reads(expression):
            if read.form == form and read.node_id not in seen:
                seen.add(read.node_id)
                answer.append([read.node_id, form])
    return answer


@pytest.mark.parametrize(
    ("expression", "engine_answer"), json.loads(ANSWERS.read_text(encoding="utf-8"))
)
def test_agrees_with_answers_recorded_from_the_engine(
    expression: str, engine_answer: list[list[str]]
) -> None:
    # Generated expressions (access shapes mixed with every give-up trigger, whitespace kinds and
    # identifier characters) and the reads the engine's own scan, run under Node, returned.
    assert engine_view(expression) == engine_answer


def _literal_end_char_by_char(text: str, start: int, quote: str) -> int | None:
    """The engine's literal reading, one character at a time (what `_literal_end` must equal)."""
    j = start + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if quote == "`" and text[j] == "$" and text.startswith("{", j + 1):
            return None
        if text[j] == quote:
            return j + 1
        j += 1
    return None


@settings(max_examples=500, deadline=None)
@example("`", "a${b}`")
@example("`", "a\\${b}`")
@example('"', 'a\\"b"')
@example("'", "a\\")
@given(st.sampled_from(["'", '"', "`"]),
       st.lists(st.sampled_from(["a", "'", '"', "`", "\\", "$", "{", "}", "\n", "é", "𝑥", " "]),
                max_size=20).map("".join))
def test_literal_ends_where_a_character_by_character_reading_ends(quote: str, body: str) -> None:
    text = quote + body
    assert _literal_end(text, 0, quote) == _literal_end_char_by_char(text, 0, quote)
