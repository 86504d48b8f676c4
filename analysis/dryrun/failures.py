"""Where a failed evaluation points in the workflow: the author's own error (class, message, the
failing token) as the error JSON of a dry run and as a compiler-style line with a caret."""

from __future__ import annotations

from typing import Any

from analysis.document.display import clip_message, escape_controls, excerpt, utf16_range
from analysis.document.scalar_offsets import ScalarText
from analysis.document.source import SourceText, code_points_in
from sandbox import ErrorDetail, Outcome
from sandbox.errors import SourcePosition
from sandbox.syntax import LINE_TERMINATOR


def error_json(outcome: Outcome, field: ScalarText, source: SourceText) -> dict[str, Any]:
    """The failure's error object with the author's own error (`detail`: class, message, range)
    when the evaluation gave one, its range in document coordinates (0-based lines, UTF-16
    columns, as `check --format json`). A dry run shows the author their own evaluation; a
    `secret_context` failure has no detail."""
    error = outcome.to_json(include_detail=True)["error"]
    shown = error.get("detail")
    if shown is not None and outcome.detail is not None:
        span = detail_span(field, outcome.detail)
        shown.pop("range", None)
        if span is not None:
            shown["range"] = utf16_range(source, source.range(*span))
    return error


def compiler_line(
    path: str, outcome: Outcome, field: ScalarText, source: SourceText
) -> list[str]:
    """`path:LINE:COLUMN: Class: message` (1-based, code-point columns as `check` text) and the
    source line with a caret under the failing token; [] without a detail."""
    detail = outcome.detail
    if detail is None:
        return []
    span = detail_span(field, detail) or field.scalar.span
    where = source.range(*span)
    heading = f"{escape_controls(detail.cls)}: {clip_message(detail.message)}"
    return [
        f"{escape_controls(path)}:{where.start.line + 1}:{where.start.character + 1}: {heading}",
        *excerpt(source, where),
    ]


def detail_span(field: ScalarText, detail: ErrorDetail) -> tuple[int, int] | None:
    """Document offsets of the failing token, from the detail's expression coordinates (0-based
    lines split at JavaScript line terminators, UTF-16 columns); None without a range."""
    if detail.range is None:
        return None
    start = _expression_index(field.value, detail.range.start)
    end = _expression_index(field.value, detail.range.end)
    return field.source_span(start, max(end, start))


def _expression_index(text: str, position: SourcePosition) -> int:
    """The code-point index of an expression position (clamped to the text)."""
    line_start = 0
    for _ in range(position.line):
        terminator = LINE_TERMINATOR.search(text, line_start)
        if terminator is None:
            return len(text)
        line_start = terminator.end()
    terminator = LINE_TERMINATOR.search(text, line_start)
    line_end = terminator.start() if terminator is not None else len(text)
    return line_start + code_points_in(text[line_start:line_end], position.character)
