"""Facts about one embedded JavaScript expression (pure; no YAML, no LSP).

- `analyze_expression(source) -> ExpressionFacts`: literal `run.outputs` reads graded by whether
  the engine's own parse-time scan sees them (`ReadGrade.ENGINE`: the engine refuses the workflow)
  or only a scope-aware syntax tree does (`ReadGrade.SYNTAX_TREE`: accepted, `undefined` at run
  time); `inputs.x` / `ctx.x` reads and whole-binding reads (`JSON.stringify(ctx)`); uses of
  globals the sandbox lacks; `branches` uses; `{{` in code position.
- `semantic_tokens(source) -> tuple[Token, ...]`: a lexical classification for editors.

`source` is the decoded expression (the YAML scalar's value); every `Span` is a pair of
code-point offsets into it. Both functions accept any text without raising and are cached, so
re-analysing an unchanged expression on each keystroke costs a dictionary look-up. Syntax
validity is the engine's judgement, not tree-sitter's: see `sandbox.syntax.check_syntax`.
"""

from analysis.document.expressions.facts import (
    FORBIDDEN_GLOBALS,
    SCOPE_BINDINGS,
    ExpressionFacts,
    ForbiddenUse,
    MemberRead,
    OutputRead,
    ReadForm,
    ReadGrade,
    ScopeRead,
    Span,
    WholeScopeRead,
    analyze_expression,
)
from analysis.document.expressions.tokens import Token, TokenKind, semantic_tokens

__all__ = [
    "FORBIDDEN_GLOBALS",
    "SCOPE_BINDINGS",
    "ExpressionFacts",
    "ForbiddenUse",
    "MemberRead",
    "OutputRead",
    "ReadForm",
    "ReadGrade",
    "ScopeRead",
    "Span",
    "Token",
    "TokenKind",
    "WholeScopeRead",
    "analyze_expression",
    "semantic_tokens",
]
