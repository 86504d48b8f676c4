"""js-syntax: the engine's parser verdict at the engine's position."""

from tests.analysis.checks.rules.expressions.expression_rule_helpers import (
    diagnostics,
    range_text,
    transform,
    workflow,
)

# A line break inside a `|` block scalar written by `one_node` (its lines are indented 8).
LITERAL_LINE_BREAK = "\n        "


def one_node(expression: str, style: str = "double-quoted") -> str:
    return workflow(transform("shape", expression, style))


def test_reports_the_engine_position_and_message() -> None:
    text = one_node("[1, 2].map(x => x * ) ")
    (found,) = diagnostics(text, "js-syntax")
    assert range_text(text, found) == ")"
    assert "`nodes[0].transform` (node `shape`)" in found.message
    assert "unexpected token" in found.message
    assert found.data == {"node": "shape", "field": "transform"}


def test_checks_what_tree_sitter_alone_would_accept() -> None:
    text = one_node("a ?? b || c")
    (found,) = diagnostics(text, "js-syntax")
    assert range_text(text, found) == "||"


def test_unexpected_end_points_at_the_last_character() -> None:
    text = one_node("inputs.x +", "literal")
    (found,) = diagnostics(text, "js-syntax")
    assert range_text(text, found) == "+"


def test_valid_modern_syntax_is_quiet() -> None:
    for expression in ("inputs?.a ?? 1n", "{ ...run.outputs }", "[1_000].at(-1)", "/(?<y>\\d+)/"):
        assert diagnostics(one_node(expression), "js-syntax") == [], expression


def test_hash_in_a_block_scalar_is_javascript_not_a_comment() -> None:
    text = workflow(
        "    - id: join\n"
        "      type: merge\n"
        "      merge_strategy: custom\n"
        "      merge_fn: |\n"
        "        { ...branches[0], ...branches[1] }   # branches = [a, b]\n"
    )
    (found,) = diagnostics(text, "js-syntax")
    assert range_text(text, found) == "#"


def test_empty_expression_is_left_to_the_schema_rule() -> None:
    assert diagnostics(one_node("  "), "js-syntax") == []


def test_a_merge_fn_the_engine_ignores_is_left_to_unused_merge_fn() -> None:
    text = workflow(
        "    - id: join\n"
        "      type: merge\n"
        "      merge_strategy: concat\n"
        "      merge_fn: 'Date.now( +'\n"
    )
    found = {d.rule for d in diagnostics(text, "js-syntax")} | {
        d.rule for d in diagnostics(text, "forbidden-global")
    }
    assert found == set()
    assert diagnostics(text, "unused-merge-fn")


def test_yaml_comment_inside_a_block_scalar_gets_the_trap_hint() -> None:
    # The engine's own merge_fn example: the `# …` is part of the JavaScript.
    text = one_node("{ ...branches[0], ...branches[1] }   # branches = outputs", "literal")
    (found,) = diagnostics(text, "js-syntax")
    assert range_text(text, found).startswith("#")
    assert "not a YAML comment" in found.message


def test_a_hash_in_a_quoted_scalar_gets_no_yaml_comment_hint() -> None:
    text = one_node("1 # two", "double-quoted")
    (found,) = diagnostics(text, "js-syntax")
    assert "YAML comment" not in found.message


def test_statements_where_one_expression_belongs_say_what_to_write() -> None:
    cases = {
        "inputs.x;": (";", "remove the `;`"),
        "const y = 1": ("const", "wrap the statements in `(() => { …; return value })()`"),
        "return inputs.x": ("return", "remove `return`"),
        "if (inputs.x) 1": ("if", "use `cond ? a : b` for a choice"),
    }
    for expression, (covered, advice) in cases.items():
        text = one_node(expression, "literal")
        (found,) = diagnostics(text, "js-syntax")
        assert range_text(text, found) == covered, expression
        assert advice in found.message, expression
    (found,) = diagnostics(one_node("inputs.x +", "literal"), "js-syntax")
    assert "statement" not in found.message


def test_a_wrapper_breakout_the_engine_compiles_is_a_warning() -> None:
    # The engine's `return (⏎<source>⏎ );` compiles `inputs ); (1`: an error would be a false
    # positive (issue 10); the sandbox still refuses it, and the warning says what happens.
    for lines in (["inputs ); (1"], ["1) + (2"], ["x <!-- hidden", ") + (2"]):
        text = one_node(LITERAL_LINE_BREAK.join(lines), "literal")
        (found,) = diagnostics(text, "js-syntax")
        assert found.severity.name == "WARNING", lines
        assert "closes the parenthesis the engine wraps" in found.message
    (error,) = diagnostics(one_node("inputs.x;", "literal"), "js-syntax")
    assert error.severity.name == "ERROR"


def test_html_like_comments_are_read_as_the_engine_reads_them() -> None:
    lines = ["inputs.x", "--> ignored ) ( text"]
    assert diagnostics(one_node(LITERAL_LINE_BREAK.join(lines), "literal"), "js-syntax") == []
    assert diagnostics(one_node("String.raw`\\unicode`", "literal"), "js-syntax") == []


def test_the_message_leads_with_what_to_do_and_keeps_the_parser_wording_after_it() -> None:
    cases = {
        ("{ ...branches[0] }   # note", "literal"): "write the comment with `//`",
        ("inputs.x;", "literal"): "remove the `;`",
        ("inputs.x +", "literal"): "fix the JavaScript before the run",
    }
    for (expression, style), advice in cases.items():
        (found,) = diagnostics(one_node(expression, style), "js-syntax")
        lead, parser = found.message.split(". JavaScript syntax error: ", 1)
        assert lead.startswith("In `nodes[0].transform` (node `shape`), "), found.message
        assert lead.split(", ", 1)[1].startswith(advice), found.message
        assert parser and parser.endswith("."), found.message
