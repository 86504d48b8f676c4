"""expression-too-large: a warning past the analysis limit, an error past the engine's own.

The engine's sandbox refuses an expression longer than 100,000 characters (JavaScript string
length: UTF-16 code units) before compiling it — `syntax` every time the node runs
(`MAX_EXPRESSION_CHARS` in packages/core/src/expression/sandbox.ts).
"""

from analysis.diagnostics import Severity
from tests.analysis.checks.rules.expressions.expression_rule_helpers import (
    diagnostics,
    transform,
    workflow,
)


def too_large(expression: str) -> list[Severity]:
    text = workflow(transform("shape", expression, "double-quoted"))
    return [found.severity for found in diagnostics(text, "expression-too-large")]


def test_past_the_analysis_limit_it_is_a_warning() -> None:
    assert too_large("1" + " + 1" * 10_000) == [Severity.WARNING]  # 40,001 characters
    assert too_large("1" + " + 1" * 8_000) == []  # 32,001 characters: within 32 KiB (32,768)


def test_past_the_engines_limit_it_is_an_error() -> None:
    assert too_large("1" * 100_000) == [Severity.WARNING]
    assert too_large("1" * 100_001) == [Severity.ERROR]


def test_the_engine_counts_utf16_code_units() -> None:
    # 50,002 characters (50,000 astral ones and the quotes) are 100,002 UTF-16 code units.
    astral = f"'{'😀' * 50_000}'"
    assert len(astral) < 100_000 < len(astral.encode("utf-16-le")) // 2
    assert too_large(astral) == [Severity.ERROR]
