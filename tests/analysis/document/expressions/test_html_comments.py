"""Annex B HTML-like comments, as QuickJS reads them: `<!--` anywhere in code and `-->` first on a
line (after only whitespace and comments) comment out the rest of the line. What an expression
reads is decided on that text. Each case is checked against real QuickJS here: the reads the
scans find are exactly the `run.outputs` keys QuickJS touches when it evaluates the expression
inside the engine's wrapper."""

import json

import pytest
import quickjs

from analysis.checks.analyze import analyze
from analysis.document.expressions.engine_scan import engine_output_reads
from analysis.document.expressions.facts import analyze_expression
from analysis.document.expressions.parsing import ParsedExpression
from analysis.document.expressions.tokens import TokenKind, semantic_tokens
from tests.analysis.checks.rules.expressions.expression_rule_helpers import workflow

# (expression, the run.outputs keys it reads, the comment's text or None)
CASES = [
    ('x\n--> run.outputs["ghost"]', [], '--> run.outputs["ghost"]'),
    ('x <!-- run.outputs["ghost"]', [], '<!-- run.outputs["ghost"]'),
    ('x\n  /* a */ --> run.outputs["ghost"]', [], '--> run.outputs["ghost"]'),
    ('x /*\n*/ --> run.outputs["ghost"]', [], '--> run.outputs["ghost"]'),  # LF in the comment
    ('x\n// c\n--> run.outputs["ghost"]', [], '--> run.outputs["ghost"]'),
    ('x\n\u2028--> run.outputs["ghost"]', [], '--> run.outputs["ghost"]'),  # LS ends a line
    ('`${x <!-- run.outputs["ghost"]\n}`', [], '<!-- run.outputs["ghost"]'),  # in a substitution
    ('x\n--> note ((( not code\n+ run.outputs["real"]', ["real"], "--> note ((( not code"),
    ('x <!-- a\n--> b\n+ run.outputs["real"]', ["real"], "<!-- a"),
    # Not comments: mid-line `-->` is `x-- > …`; inside strings, templates and regexes it is text.
    ('x --> run.outputs["real"]', ["real"], None),
    ('"<!--" + run.outputs["real"]', ["real"], None),
    ('`<!-- ${run.outputs["real"]}`', ["real"], None),
    ('/<!--/.test(run.outputs["real"])', ["real"], None),
    ('x /* --> */ + run.outputs["real"]', ["real"], None),
]

_RECORDER = """(function () {
  "use strict";
  let x = 5;
  const seen = [];
  const run = { outputs: new Proxy({}, { get(target, key) { seen.push(key); return "1"; } }) };
  (function () { return (
%s
  ); })();
  return JSON.stringify(seen);
})()"""


def quickjs_reads(expression: str) -> list[str]:
    return list(dict.fromkeys(json.loads(quickjs.Context().eval(_RECORDER % expression))))


@pytest.mark.parametrize(("expression", "reads", "comment"), CASES)
def test_reads_are_what_quickjs_reads(expression: str, reads: list[str],
                                      comment: str | None) -> None:
    assert quickjs_reads(expression) == reads  # the ground truth this case states
    facts = analyze_expression(expression)
    assert not facts.broken
    assert [read.node_id for read in facts.output_reads] == reads


@pytest.mark.parametrize(("expression", "reads", "comment"), CASES)
def test_the_comment_is_found_and_highlighted(expression: str, reads: list[str],
                                              comment: str | None) -> None:
    found = [expression[start:end] for start, end in ParsedExpression(expression).html_comments]
    assert found[:1] == ([comment] if comment else [])
    tokens = [expression[t.span.start:t.span.end] for t in semantic_tokens(expression)
              if t.kind is TokenKind.COMMENT]
    if comment:
        assert comment in tokens
    else:
        assert all(token.startswith("/*") for token in tokens)


def test_the_engine_scan_gives_up_on_either_form_as_the_engine_does() -> None:
    # literal-output-reads.ts maskStep abandons on `<!--` / `-->` in code: it refuses nothing.
    assert engine_output_reads('run.outputs["a"]\n--> x') == ()
    assert engine_output_reads('run.outputs["a"] <!-- x') == ()


def block(node_id: str, *lines: str) -> str:
    body = "".join(f"        {line}\n" for line in lines)
    return f"    - id: {node_id}\n      type: transform\n      transform: |\n{body}"


def test_rules_see_the_text_quickjs_runs() -> None:
    text = workflow(block("shape", "inputs.n", '--> run.outputs["ghost"] + Date.now() + ((('))
    assert analyze(text).diagnostics == []
    text = workflow(block("shape", 'inputs.n --> run.outputs["ghost"]'))
    assert [d.rule for d in analyze(text).diagnostics] == ["unknown-output-reference"]


def test_many_comments_are_found_and_a_pathological_chain_gives_up_safely() -> None:
    many = "1" + "".join(f'\n--> run.outputs["ghost{i}"]' for i in range(200))
    assert len(ParsedExpression(many).html_comments) == 200
    assert analyze_expression(many).output_reads == ()
    # Each comment holding a backtick forces a fresh parse; past the cap the expression counts as
    # broken, and a broken expression's reads come from the engine's scan alone (none here).
    chain = "1" + "".join(f'\n--> ` run.outputs["ghost{i}"]' for i in range(40))
    assert ParsedExpression(chain).broken
    assert analyze_expression(chain).output_reads == ()


def test_tokens_stay_ordered_when_a_broken_text_disagrees_with_itself() -> None:
    # Found by the token fuzz test: after blanking `<!--…`, the parse reads a block comment
    # from the `/*` before it, over the blanked span; the tokens must still not overlap.
    source = "*/*/<!--\u2028run/"
    previous_end = 0
    for token in semantic_tokens(source):
        assert previous_end <= token.span.start < token.span.end <= len(source)
        previous_end = token.span.end
