"""The semantic-token classification of an expression."""

from itertools import pairwise

from analysis.document.expressions import TokenKind, semantic_tokens


def classified(expression: str) -> list[tuple[str, str]]:
    return [
        (expression[t.span.start : t.span.end], t.kind.value) for t in semantic_tokens(expression)
    ]


def test_classifies_each_kind() -> None:
    expression = 'run.outputs["a"].xs.map((v) => v * 2) ?? /re/g.test(`t${inputs.x}u`) // c'
    assert classified(expression) == [
        ("run", "scope-binding"),
        ("outputs", "property"),
        ('"a"', "string"),
        ("xs", "property"),
        ("map", "function"),
        ("v", "variable"),
        ("=>", "operator"),
        ("v", "variable"),
        ("*", "operator"),
        ("2", "number"),
        ("??", "operator"),
        ("/re/g", "regexp"),
        ("test", "function"),
        ("`t", "string"),
        ("inputs", "scope-binding"),
        ("x", "property"),
        ("u`", "string"),
        ("// c", "comment"),
    ]


def test_keywords_and_shadowed_bindings() -> None:
    assert classified("typeof ctx === 'x' && ((ctx) => ctx)(null)") == [
        ("typeof", "keyword"),
        ("ctx", "scope-binding"),
        ("===", "operator"),
        ("'x'", "string"),
        ("&&", "operator"),
        ("ctx", "variable"),
        ("=>", "operator"),
        ("ctx", "variable"),
        ("null", "keyword"),
    ]


def test_branches_is_a_scope_binding_and_new_target_a_function() -> None:
    assert classified("new Set(branches)") == [
        ("new", "keyword"),
        ("Set", "function"),
        ("branches", "scope-binding"),
    ]


def test_spans_are_code_points_after_non_ascii_text() -> None:
    expression = '"𝄞ü" + ctx.é'
    assert classified(expression) == [
        ('"𝄞ü"', "string"),
        ("+", "operator"),
        ("ctx", "scope-binding"),
        ("é", "property"),
    ]


def test_multiline_comment_is_one_token() -> None:
    tokens = semantic_tokens("/* a\nb */ 1")
    assert [t.kind for t in tokens] == [TokenKind.COMMENT, TokenKind.NUMBER]
    assert tokens[0].span.end == 9


def test_broken_expression_is_still_lexed() -> None:
    assert ("inputs", "scope-binding") in classified("inputs.x +")


def test_an_unclosed_template_holding_a_comment_marker_gives_no_overlapping_tokens() -> None:
    """tree-sitter reads a comment inside an unclosed template (`//` after the backtick): the
    string token was followed by a comment token inside it, which an editor's delta encoding of
    semantic tokens cannot represent (found by the fuzz test's hypothesis run)."""
    for expression in ("`//", "a + `//x", "`${a}//"):
        tokens = semantic_tokens(expression)
        assert tokens
        assert all(earlier.span.end <= later.span.start
                   for earlier, later in pairwise(tokens)), expression
