"""check_syntax: the engine's own parser plus the one-expression structure check."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox import syntax
from sandbox.syntax import NOT_ONE_EXPRESSION, SyntaxProblem, check_syntax

DUPLICATE_PARAMETER = "Duplicate parameter name not allowed in this context"


@pytest.mark.parametrize(
    "source",
    [
        "(x ?? y) || z",
        "{ ...inputs }",  # parenthesized by the wrapper: an object literal, not a block
        "run.outputs['classify'].sentiment === 'angry'",
        "x // a trailing comment cannot swallow the wrapper's parenthesis",
        "/* lead */ inputs.a /* trail */",
        "1, 2",
        "async () => await 1",
        "a?.b ?? 1_000n",
        "(class { #x = 1; m() { return #x in this } })",
        "'a\x00b'",  # a NUL inside a string literal is legal JavaScript
        "'\ud800'",  # so is a lone surrogate
        "é中 + '😀'",
        "/* \x00 */ `\x00` + /\x00/",
        "x\r\n+ y",
        # ES2018 template literal revision: an invalid escape in a tagged template is legal.
        "String.raw`\\unicode`",
        "String.raw`\\u{` + String.raw`\\xz`",
    ],
)
def test_valid_expressions_have_no_problem(source: str) -> None:
    assert check_syntax(source) is None


@pytest.mark.parametrize(
    ("source", "offset", "message"),
    [
        ("x ?? y || z", 7, "Unexpected token '||'"),
        ("await x", 6, "Unexpected identifier 'x'"),
        ("(a, a) => a", 10, DUPLICATE_PARAMETER),
        ("function (a, a) { return a }", 18, DUPLICATE_PARAMETER),
        ("# a YAML comment\ninputs.a", 0, "invalid first character of private name"),
        ("'unterminated", 0, "unexpected end of string"),
        ("`unterminated ${x}", 17, "unexpected end of string"),
        ("}", 0, "unexpected token in expression: '}'"),
        # The engine wraps the source in parentheses, so a statement terminator is an error.
        ("inputs.a;", 8, "Unexpected token ';'"),
        ("010", 0, "Octal literals are not allowed in strict mode"),
        ("delete x", 8, "cannot delete a direct reference in strict mode"),
    ],
)
def test_engine_errors_keep_message_and_code_point_offset(
    source: str, offset: int, message: str
) -> None:
    assert check_syntax(source) == SyntaxProblem(offset=offset, message=message)


@pytest.mark.parametrize("source", ["", "   ", "\n\t"])
def test_empty_source_is_an_error_at_its_end(source: str) -> None:
    problem = check_syntax(source)
    assert problem is not None
    assert problem.offset == len(source)
    assert problem.message == "unexpected token in expression: ')'"


@pytest.mark.parametrize(
    ("source", "offset"),
    [
        ("é中😀 + )", 2),  # 😀 cannot start an identifier part; engine columns are UTF-8 bytes
        ("é中\n😀", 3),
        ("'é'\r\n+ 😀", 7),
        ("'é'\u2028😀", 4),
        ("'\ud800' +)", 5),
        ("'a\u2028b' +)", 7),  # a line terminator inside a string literal still counts
        ("`a\r\nb` +)", 8),
        ("/* a\u2029 b */ +)", 12),
    ],
)
def test_offsets_count_code_points_across_engine_line_terminators(source: str, offset: int) -> None:
    problem = check_syntax(source)
    assert problem is not None
    assert problem.offset == offset


@pytest.mark.parametrize(
    ("source", "offset"),
    [
        ("1)}); x=1; (function(){(1", 1),
        ("1)}); let q; (function(){(1", 1),
        ("1) + (2", 1),
        ("'é') + ('x'", 3),
    ],
)
def test_wrapper_breakouts_are_not_one_expression(source: str, offset: int) -> None:
    assert check_syntax(source) == SyntaxProblem(
        offset=offset, message=NOT_ONE_EXPRESSION, engine_compiles=True
    )


def test_breakout_declarations_do_not_change_later_answers() -> None:
    breakout = "1)}); let reused; (function(){(1"
    assert check_syntax(breakout) == check_syntax(breakout)


def test_nothing_authored_runs_during_the_check() -> None:
    assert check_syntax("(globalThis.ran = 1, ran)") is None
    assert check_syntax("1)}); globalThis.ran = 1; (function(){(1") is not None
    assert syntax._parsers.context.eval("typeof globalThis.ran") == "undefined"


def test_too_deep_nesting_reports_the_engine_stack_error() -> None:
    problem = check_syntax("(" * 5000 + "1" + ")" * 5000)
    assert problem == SyntaxProblem(
        offset=0, message="Maximum call stack size exceeded", cap="stack"
    )


def test_message_quotes_a_token_but_never_the_whole_long_source() -> None:
    source = "a" * 5000 + " b" + " c" * 2000
    problem = check_syntax(source)
    assert problem is not None
    assert problem.offset == 5001
    assert len(problem.message) <= syntax.MESSAGE_LIMIT
    assert source not in problem.message


def test_threads_get_their_own_parsers() -> None:
    results: list[SyntaxProblem | None] = []

    def check_many() -> None:
        for _ in range(200):
            results.append(check_syntax("inputs.a +"))
            results.append(check_syntax("inputs.a + 1"))

    threads = [threading.Thread(target=check_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count(None) == 800
    assert len(set(results)) == 2


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from("()[]{};,.+-*/`'\"\\$#?:=>!\n\r\u2028 ax1é😀\x00"), max_size=30
    )
)
def test_arbitrary_text_never_crashes_and_offsets_stay_in_range(source: str) -> None:
    problem = check_syntax(source)
    if problem is not None:
        assert 0 <= problem.offset <= len(source)
        assert problem.message


# HTML-like comments, judged as QuickJS reads them (issue 9 item 2): `<!--` anywhere and `-->` at
# the start of a line (after whitespace or a comment only) hide the rest of their line. A source
# that uses them to hide text from one reader and close the wrapper for the other is refused.
LINE_STARTS = ["\n", "\r\n", "\r", "\u2028", "\u2029", "\n  \t", "\n/* c */ ", "\n\u00a0"]
BREAKOUT = ")}); globalThis.ran = 1; (function(){(1"


@pytest.mark.parametrize("start", LINE_STARTS)
def test_a_line_leading_html_close_comment_hides_its_line(start: str) -> None:
    # QuickJS reads the second line as a comment: one expression, `x`.
    assert check_syntax(f"x{start}--> run.outputs['ghost']") is None
    assert check_syntax(f"x{start}--> )") is None


@pytest.mark.parametrize("start", LINE_STARTS)
def test_a_breakout_after_a_line_leading_html_comment_is_refused(start: str) -> None:
    problem = check_syntax(f"x{start}--> hidden\n{BREAKOUT}")
    assert problem is not None and problem.message == NOT_ONE_EXPRESSION
    assert problem.engine_compiles


@pytest.mark.parametrize(
    "source",
    [
        f"0 <!-- hidden\n{BREAKOUT}",
        f"0 <!--\n{BREAKOUT}",
        f"a <!-- b\n{BREAKOUT}",
        f"x\n--> ( hidden\n{BREAKOUT}",
        f"x /* a\n */ --> ( hidden\n{BREAKOUT}",
    ],
)
def test_html_comment_breakouts_are_refused_and_run_nothing(source: str) -> None:
    problem = check_syntax(source)
    assert problem is not None and problem.message == NOT_ONE_EXPRESSION
    assert syntax._parsers.context.eval("typeof globalThis.ran") == "undefined"


@pytest.mark.parametrize(
    "source",
    [
        "0 <!-- ) }); x = 1; (function(){(1",  # the breakout text is inside the comment
        "x <!--y",
        "'<!-- not a comment' + x",
        "`<!--\n--> still a template` + x",
        "/<!--/.test(x)",
        "/-->/.test(x)",
        "'\\\n--> continued string'",
    ],
)
def test_html_comment_forms_inside_literals_or_comments_are_ordinary(source: str) -> None:
    assert check_syntax(source) is None


def test_html_close_comment_mid_line_is_operators() -> None:
    from sandbox import Scope, evaluate

    source = "(() => { let x = 2; return x --> 1 })()"  # `x-- > 1`: not at a line start
    assert check_syntax(source) is None
    assert evaluate(source, "transform", Scope()) is True


def test_evaluation_agrees_with_the_check_on_html_comments() -> None:
    from sandbox import Scope, evaluate

    assert evaluate("1 <!-- + 1\n+ 2", "transform", Scope()) == 3
    assert evaluate("1\n--> + 100\n+ 2", "transform", Scope()) == 3


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Each compile check_syntax makes from here on, as (source, brackets), none kept before."""
    made: list[tuple[str, str]] = []
    real = syntax._engine_problem

    def counted(source: str, brackets: str) -> SyntaxProblem | None:
        made.append((source, brackets))
        return real(source, brackets)

    monkeypatch.setattr(syntax, "_engine_problem", counted)
    monkeypatch.setattr(syntax, "_compiled", syntax._CompiledSources(1 << 10))
    return made


def test_a_source_that_compiled_is_not_compiled_again_and_a_failure_always_is(
    compiles: list[tuple[str, str]],
) -> None:
    def sources() -> list[str]:
        return [source for source, _ in compiles]

    assert check_syntax("(inputs.cached) / 2") is None
    assert check_syntax("(inputs.cached) / 2") is None
    assert sources() == ["(inputs.cached) / 2"] * 2  # both wrappers, once
    broken = [check_syntax("inputs.cached +") for _ in range(2)]
    assert broken[0] == broken[1] is not None and sources().count("inputs.cached +") == 2
    breakout = "1)}); x=1; (function(){(1"
    assert check_syntax(breakout) == check_syntax(breakout) is not None
    assert sources().count(breakout) == 4  # refused each time: a breakout is never kept


def test_the_compiled_sources_stay_within_their_size() -> None:
    kept = syntax._CompiledSources(10)
    for source in ("aaaa", "bbbb", "cccc"):
        kept.add(source)
    assert not kept.has("aaaa")  # the oldest went first
    assert kept.has("cccc") and kept.has("bbbb")  # "bbbb" is now the most recently used
    kept.add("dddd")
    assert kept.has("bbbb") and kept.has("dddd") and not kept.has("cccc")
    kept.add("x" * 11)  # larger than the whole bound: never kept
    assert not kept.has("x" * 11) and kept.has("bbbb")


@pytest.mark.parametrize(("source", "wrappers"), [
    ("inputs.a > 3 ? [inputs.b] : { c: `${ctx.d}` }", ["()"]),  # no `)` at all
    ('String(run.outputs["a"].b ?? "(none)").slice(0, 4) + f((x) => x)', ["()"]),
    ("(a) / (b)", ["()", "[]"]),  # a `/` might open a comment or regex that hides a `)`
    ("f(`)`)", ["()", "[]"]),
    ("f(a) // )", ["()", "[]"]),
])
def test_only_a_source_that_might_leave_the_wrapper_is_compiled_in_brackets_too(
    compiles: list[tuple[str, str]], source: str, wrappers: list[str],
) -> None:
    assert check_syntax(source) is None
    assert [brackets for _, brackets in compiles] == wrappers


# Everything that could hide a parenthesis from one reader or open a construct across the
# wrapper's lines: quotes, templates, comments, regexes, HTML-like comments, line continuations.
COMPILED_IN_ONE_WRAPPER = [
    "'a\\\nb'", "`a\n${b}`", "/[/(]/.source", "a <!-- b\n+ c", "1\n--> c", "/* ( */ 1",
    "[1, 2, ...x]", "{ a: [b], ...c }", "a ? b : c", "x => x", "async x => await x", "`${`${a}`}`",
    "a, b, c", "a in b", "new X", "// (\n1", "'('", "a\r\n+\u2028b",
    "f(')') + g(\"(\")", "(a)(b)", "\"it's\" + ('a')", "((x) => (y) => x + y)(1)(2)",
]
# Breakouts whose `)` a naive count would miss (inside what only looks like a string) or
# balance (a `(` hidden in a string, template, comment or regex).
BREAKOUTS = [
    "'(' + 1)}); x = 1; (function(){(1",
    "\")\" + 1)}); x = 1; (function(){(\"(\"",
    "1)}); x = '(' ; (function(){(1",
    "`(` + 1)}); x = 1; (function(){(1",
    "`((`)}); x = 1; (function(){(1",
    "1 /* (( */)}); x = 1; (function(){(1",
    "a <!-- ((\n)}); x = 1; (function(){(1",
    "/[((]/)}); x = 1; (function(){(1",
    "'\\'((' + 1)}); x = 1; (function(){(1",
]


@pytest.mark.parametrize("source", COMPILED_IN_ONE_WRAPPER)
def test_a_source_that_cannot_leave_the_wrapper_compiles_in_the_bracket_wrapper_too(
    source: str,
) -> None:
    assert check_syntax(source) is None
    assert syntax._engine_problem(source, "[]") is None


@pytest.mark.parametrize("source", BREAKOUTS)
def test_breakouts_behind_hidden_parentheses_are_still_refused(source: str) -> None:
    problem = check_syntax(source)
    assert problem is not None and problem.engine_compiles


@settings(max_examples=500, deadline=None)
@given(st.one_of(
    st.sampled_from(COMPILED_IN_ONE_WRAPPER + BREAKOUTS),
    st.text(alphabet=st.sampled_from("()[]{};,.+-*/`'\"\\$#?:=>!<\n\r\u2028 ax1\x00"),
            max_size=24),
    st.lists(st.sampled_from(["(", ")", "'('", "')'", '")"', "1", "+", "f", "})", ";", "x=1",
                              "(function(){", "\n"]), max_size=12).map("".join),
))
def test_a_skipped_bracket_compile_would_have_passed(source: str) -> None:
    verdict = check_syntax(source)
    if verdict is None:
        assert syntax._engine_problem(source, "[]") is None
    else:
        assert verdict == syntax._engine_problem(source, "()") or verdict.engine_compiles
