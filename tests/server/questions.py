"""Questions the tests ask the analysis process (sent by name: the worker imports this module,
so it stays light)."""

from __future__ import annotations

from analysis.checks.analyze import AnalysisResult


def analysed_text(result: AnalysisResult) -> str:
    """The text the analysis process analysed (an answer's own text is the server's copy)."""
    return result.source.text
