"""Report formats for `relavium-lsp check`: text, JSON and SARIF 2.1.0.

Contract: each function takes `FileReport`s (a path as shown to the user, the analysed
`SourceText`, its diagnostics). Text is `path:line:col: severity rule-id message` (1-based line
and code-point column) followed by the source line and a caret. GitHub is one workflow command
per finding (`::error file=…,line=…,col=…::message`, positions as in text). JSON is a list of
`{"path", "range": {"start": {"line", "character"}, "end": {...}}, "severity", "code", "message",
"data"}` with 0-based lines and UTF-16 characters. SARIF uses 1-based lines and UTF-16 columns
(`columnKind: utf16CodeUnits`) and lists every rule that exists in `tool.driver.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from analysis.diagnostics import Diagnostic, Position, Range, Severity
from analysis.source import SourceText

_SARIF_LEVEL = {
    Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFORMATION: "note",
    Severity.HINT: "note",
}


@dataclass(frozen=True)
class FileReport:
    path: str
    source: SourceText
    diagnostics: list[Diagnostic]


def _tool_version() -> str:
    # Imported here: it scans the installed distributions, and only SARIF output names a version.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("relavium-lsp")
    except PackageNotFoundError:
        return "0"


# Text output goes to terminals and CI logs: a character that could move the cursor, retitle the
# window, reorder the text around it (bidi controls, "Trojan Source") or break a line is shown
# escaped. Tabs stay, so an excerpt keeps its indentation.
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                           "\u2066\u2067\u2068\u2069")
_LINE_SEPARATORS = frozenset("\u2028\u2029")
MAX_EXCERPT_COLUMNS = 200
# A message can quote a value from the file; the start names the problem, the end the fix.
MAX_MESSAGE_CHARS = 1000
# How much of the line before a diagnostic's start a clipped excerpt keeps.
_EXCERPT_LEAD = 60
ELLIPSIS = "…"


def _shown(ch: str) -> str:
    code = ord(ch)
    if ch == "\t":
        return ch
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return f"\\x{code:02x}"
    if ch in _BIDI_CONTROLS or ch in _LINE_SEPARATORS or 0xD800 <= code <= 0xDFFF:
        return f"\\u{code:04x}"
    return ch


def escape_controls(text: str) -> str:
    """`text` with control, bidi-control and line-separator characters (and lone surrogates)
    written as `\\x1b` / `\\u202e` escapes; everything else unchanged."""
    if text.isprintable():
        return text
    return "".join(_shown(ch) for ch in text)


def clip_message(message: str) -> str:
    """`message` shortened to MAX_MESSAGE_CHARS in the middle, escaped for a terminal."""
    if len(message) > MAX_MESSAGE_CHARS:
        tail = MAX_MESSAGE_CHARS // 3
        message = message[: MAX_MESSAGE_CHARS - tail - 1] + ELLIPSIS + message[-tail:]
    return escape_controls(message)


def _excerpt(line: str, start: int, end: int) -> list[str]:
    """The line, escaped and clipped to about MAX_EXCERPT_COLUMNS around `start`, and a caret line
    under `[start, end)`."""
    # Every character takes at least one column: nothing beyond this slice can be shown.
    offset = max(start - MAX_EXCERPT_COLUMNS, 0)
    window = line[offset : start + MAX_EXCERPT_COLUMNS]
    start, end = start - offset, end - offset
    shown = [_shown(ch) for ch in window]
    first, last = 0, len(shown)
    if sum(map(len, shown)) > MAX_EXCERPT_COLUMNS:
        first, lead = start, 0
        while first > 0 and lead + len(shown[first - 1]) <= _EXCERPT_LEAD:
            first -= 1
            lead += len(shown[first])
        last, width = first, 0
        while last < len(shown) and width + len(shown[last]) <= MAX_EXCERPT_COLUMNS:
            width += len(shown[last])
            last += 1
    prefix = ELLIPSIS if offset + first > 0 else ""
    suffix = ELLIPSIS if offset + last < len(line) else ""
    # Keep tabs in the indent so the caret lines up under the source text in a terminal.
    indent = "".join(piece if piece == "\t" else " " * len(piece) for piece in shown[first:start])
    width = sum(len(piece) for piece in shown[start : min(end, last)])
    return [f"  {prefix}{''.join(shown[first:last])}{suffix}",
            f"  {' ' * len(prefix)}{indent}^{'~' * max(width - 1, 0)}"]


def _caret(source: SourceText, diagnostic: Diagnostic) -> list[str]:
    return excerpt(source, diagnostic.range)


def excerpt(source: SourceText, range_: Range) -> list[str]:
    """The range's first line, escaped and clipped, with a caret line under the range."""
    start, end = range_.start, range_.end
    if start.line >= source.line_count:
        return []
    line = source.line_text(start.line)
    return _excerpt(line, start.character, end.character if end.line == start.line else len(line))


def format_text(reports: list[FileReport]) -> str:
    lines: list[str] = []
    for report in reports:
        for diagnostic in report.diagnostics:
            start = diagnostic.range.start
            lines.append(
                f"{escape_controls(report.path)}:{start.line + 1}:{start.character + 1}: "
                f"{diagnostic.severity.label} {diagnostic.rule} "
                f"{clip_message(diagnostic.message)}"
            )
            lines.extend(_caret(report.source, diagnostic))
    return "\n".join(lines) + ("\n" if lines else "")


_GITHUB_LEVEL = {
    Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFORMATION: "notice",
    Severity.HINT: "notice",
}


def _github_escape(text: str, *, in_property: bool = False) -> str:
    """GitHub's workflow-command escaping (after our own control-character escaping)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if in_property:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(reports: list[FileReport]) -> str:
    """One `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=rule-id::message` workflow
    command per finding (1-based lines and code-point columns, as in the text format)."""
    lines = []
    for report in reports:
        path = _github_escape(escape_controls(report.path), in_property=True)
        for diagnostic in report.diagnostics:
            start, end = diagnostic.range.start, diagnostic.range.end
            properties = (f"file={path},line={start.line + 1},col={start.character + 1},"
                          f"endLine={end.line + 1},endColumn={end.character + 1},"
                          f"title={_github_escape(diagnostic.rule, in_property=True)}")
            message = _github_escape(clip_message(diagnostic.message))
            lines.append(f"::{_GITHUB_LEVEL[diagnostic.severity]} {properties}::{message}")
    return "".join(line + "\n" for line in lines)


def _utf16(source: SourceText, position: Position) -> dict[str, int]:
    return {"line": position.line, "character": source.utf16_character(position)}


def utf16_range(source: SourceText, range_: Range) -> dict[str, dict[str, int]]:
    """The range as JSON: 0-based lines, UTF-16 columns (as LSP and `check --format json`)."""
    return {"start": _utf16(source, range_.start), "end": _utf16(source, range_.end)}


def to_json(reports: list[FileReport]) -> list[dict[str, Any]]:
    return [
        {
            "path": report.path,
            "range": utf16_range(report.source, diagnostic.range),
            "severity": diagnostic.severity.label,
            "code": diagnostic.rule,
            "message": diagnostic.message,
            "data": diagnostic.data,
        }
        for report in reports
        for diagnostic in report.diagnostics
    ]


def _region(source: SourceText, range_: Range) -> dict[str, int]:
    return {
        "startLine": range_.start.line + 1,
        "startColumn": source.utf16_character(range_.start) + 1,
        "endLine": range_.end.line + 1,
        "endColumn": source.utf16_character(range_.end) + 1,
    }


STDIN_PATH = "<stdin>"


def _artifact_location(path: str) -> dict[str, Any]:
    """A URI reference code scanning can resolve: relative paths stay relative to the checkout,
    absolute ones become `file:` URIs; stdin has no URI, only a description."""
    if path == STDIN_PATH:
        return {"description": {"text": "standard input"}}
    as_path = Path(path)
    if as_path.is_absolute():
        return {"uri": as_path.as_uri()}
    return {"uri": quote(as_path.as_posix())}


def _location(path: str, source: SourceText, range_: Range) -> dict[str, Any]:
    return {"physicalLocation": {
        "artifactLocation": _artifact_location(path),
        "region": _region(source, range_),
    }}


def to_sarif(reports: list[FileReport]) -> dict[str, Any]:
    from analysis.rules import RULES, docs_url

    rule_ids = sorted(RULES)
    rules = [
        {
            "id": rule_id,
            "name": rule_id,
            "shortDescription": {"text": RULES[rule_id].summary},
            "helpUri": docs_url(rule_id),
            "defaultConfiguration": {"level": _SARIF_LEVEL[RULES[rule_id].severity]},
        }
        for rule_id in rule_ids
    ]
    results = []
    for report in reports:
        for diagnostic in report.diagnostics:
            result: dict[str, Any] = {
                "ruleId": diagnostic.rule,
                "level": _SARIF_LEVEL[diagnostic.severity],
                "message": {"text": diagnostic.message},
                "locations": [_location(report.path, report.source, diagnostic.range)],
            }
            if diagnostic.rule in RULES:
                result["ruleIndex"] = rule_ids.index(diagnostic.rule)
            if diagnostic.related:
                result["relatedLocations"] = [
                    {"id": index, **_location(report.path, report.source, related.range),
                     "message": {"text": related.message}}
                    for index, related in enumerate(diagnostic.related)
                ]
            results.append(result)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "relavium-lsp", "version": _tool_version(), "rules": rules,
            }},
            "columnKind": "utf16CodeUnits",
            "results": results,
        }],
    }
