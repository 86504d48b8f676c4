"""Property tests: any text is analysed without raising, and the answers stay consistent."""

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.document.expressions import ReadGrade, analyze_expression, semantic_tokens
from analysis.document.expressions.engine_scan import engine_output_reads

_JS_PIECES = [
    "run", "outputs", "inputs", "ctx", "branches", "Date", "Math", "random", ".", "?.", "[",
    "]", "(", ")", "{", "}", "{{", "}}", '"', "'", "`", "${", "/", "//", "/*", "*/", "\\",
    "\\u0075", "=>", ",", ";", " ", "\n", "\r", "a", "b-c", "é", "𝑥", "\u2028", "\ud800",
    "async", "await", "const", "let", "function", "class", "catch", "typeof", "=", "+", "<!--",
    "-->", "<a>", "1", "0x", "1n",
]  # fmt: skip
js_like = st.lists(st.one_of(st.sampled_from(_JS_PIECES), st.text(max_size=3)), max_size=40).map(
    "".join
)
any_text = st.one_of(js_like, st.text(alphabet=st.characters(codec=None), max_size=200))


@settings(max_examples=400, deadline=None)
@given(any_text)
def test_analysis_never_raises_and_spans_are_in_bounds(source: str) -> None:
    facts = analyze_expression(source)
    spans = [r.key for r in facts.output_reads] + [r.access for r in facts.output_reads]
    spans += [r.key for r in facts.scope_reads] + [u.span for u in facts.forbidden]
    spans += list(facts.branches_uses) + list(facts.template_braces)
    for span in spans:
        assert 0 <= span.start <= span.end <= len(source)
    for read in facts.output_reads:
        if read.grade is ReadGrade.ENGINE:  # the engine's keys are literal: no escapes
            assert source[read.key.start : read.key.end] == read.node_id


@settings(max_examples=400, deadline=None)
@given(any_text)
def test_tokens_never_raise_and_are_ordered(source: str) -> None:
    previous_end = 0
    for token in semantic_tokens(source):
        assert previous_end <= token.span.start < token.span.end <= len(source)
        previous_end = token.span.end


@settings(max_examples=300, deadline=None)
@given(js_like)
def test_text_inside_a_string_literal_is_never_a_read(body: str) -> None:
    # A well-formed string literal holding any text: nothing in it is code.
    literal = '"' + "".join(c if c not in '"\\\n\r\u2028\u2029' else " " for c in body) + '"'
    for expression in (literal, f"x + {literal}", f"{literal}.length"):
        facts = analyze_expression(expression)
        assert facts.output_reads == () and facts.forbidden == () and facts.scope_reads == ()
        assert engine_output_reads(expression) == ()


def test_threads_analyse_concurrently_with_the_same_answers() -> None:
    from concurrent.futures import ThreadPoolExecutor

    sources = [f"run.outputs.n{i} + inputs.x{i} / 2 + Date.now()" for i in range(400)]
    expected = [analyze_expression.__wrapped__(source) for source in sources]
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(analyze_expression.__wrapped__, sources)) == expected


def test_very_long_and_very_deep_expressions() -> None:
    # 20,000 terms nest 20,000 levels deep: no recursion, and no walk up from each reference
    # (tree-sitter finds a parent from the root, which made this cubic: minutes, not ms).
    wide = " + ".join(["inputs.x"] * 20_000)
    deep = "(" * 5_000 + "run.outputs.a" + ")" * 5_000
    assert len(analyze_expression(wide).scope_reads) == 20_000
    assert len(semantic_tokens(wide)) == 3 * 20_000 - 1
    assert [read.node_id for read in analyze_expression(deep).output_reads] == ["a"]
    assert len(semantic_tokens(deep)) == 3
