"""js-syntax: an expression field is not one valid JavaScript expression, as the engine parses it.

The verdict and the position are the engine's parser's (`sandbox.syntax.check_syntax`);
tree-sitter only widens the range to the token found there.
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.checks.expression_sites import syntax_problem
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.expressions import Span, semantic_tokens

RULE_ID = "js-syntax"
SEVERITY = Severity.ERROR
SUMMARY = "An expression is not valid JavaScript (the engine only finds out when the node runs)."


def _problem_span(source: str, offset: int) -> Span:
    """The token at the engine's position, or the last character when the input ended early."""
    code_end = len(source.rstrip())
    if offset >= code_end:
        return Span(max(code_end - 1, 0), code_end)
    for token in semantic_tokens(source):
        if token.span.start == offset:
            return token.span
    return Span(offset, offset + 1)


STATEMENT_KEYWORDS = frozenset({
    "const", "let", "var", "return", "if", "for", "while", "do", "switch", "try", "throw",
})
IIFE = "`(() => { …; return value })()`"


def _statement_advice(token: str) -> str | None:
    """What to do when the author wrote statements where one expression belongs."""
    if token == ";":
        return (f"remove the `;` (for several steps, write {IIFE}): the field holds one "
                "expression, not statements")
    if token == "return":
        return "remove `return`: the field's value is the expression itself"
    if token in STATEMENT_KEYWORDS:
        return (f"use `cond ? a : b` for a choice, or wrap the statements in {IIFE}: "
                f"`{token}` starts a statement, but the field holds one expression")
    return None


# The engine compiles the field as `return (⏎<source>⏎ );`, so a source that closes that
# parenthesis early still compiles and runs there; the sandbox here refuses it.
WRAPPER_BREAKOUT = (
    "{label} closes the parenthesis the engine wraps an expression in (`return (` … `);`) before "
    "its end, so the engine runs the rest as code of its own wrapper, not as one expression; "
    "the sandbox here refuses it (dry runs fail with `syntax`). Write exactly one expression."
)

BLOCK_STYLES = ("|", ">")
YAML_COMMENT_ADVICE = (
    "write the comment with `//`, or move it above the field: a `#` inside a `|` or `>` block "
    "scalar is JavaScript text, not a YAML comment"
)
GENERAL_ADVICE = (
    "fix the JavaScript before the run (the engine parses an expression only when its node runs)"
)


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    # An empty expression is invalid-value's report.
    sites = [site for site in ctx.expression_sites if site.field.value.strip()]
    verdicts = syntax_problem.map([site.field.value for site in sites])
    for site, problem in zip(sites, verdicts, strict=True):
        if problem is None:
            continue
        source = site.field.value
        # The engine's own docs fall into this trap (workflow-yaml.md, "A known trap").
        comment_trap = site.field.scalar.style in BLOCK_STYLES and source.startswith(
            "#", problem.offset
        )
        span = _problem_span(source, problem.offset)
        if problem.engine_compiles:
            yield site.diagnostic(
                ctx, RULE_ID, Severity.WARNING, span,
                WRAPPER_BREAKOUT.format(label=site.label),
                data={"node": site.node.id, "field": site.field.name},
            )
            continue
        # What to do comes first; the parser's own wording, for the curious, after it.
        advice = YAML_COMMENT_ADVICE if comment_trap else (
            _statement_advice(source[span.start:span.end]) or GENERAL_ADVICE)
        yield site.diagnostic(
            ctx,
            RULE_ID,
            SEVERITY,
            span,
            f"In {site.label}, {advice}. JavaScript syntax error: {problem.message}.",
            data={"node": site.node.id, "field": site.field.name},
        )
