"""Report formats for `relavium-lsp check`: text, JSON and SARIF 2.1.0.

Contract: each function takes `FileReport`s (a path as shown to the user, the analysed
`SourceText`, its diagnostics). Text is `path:line:col: severity rule-id message` (1-based line
and code-point column) followed by the source line and a caret, every line escaped for terminals
and CI logs (`analysis.document.display.escape_line`). GitHub is one workflow command
per finding (`::error file=…,line=…,col=…::message`, positions as in text). JSON is a list of
`{"path", "range": {"start": {"line", "character"}, "end": {...}}, "severity", "code", "message",
"data"}` with 0-based lines and UTF-16 characters. SARIF uses 1-based lines and UTF-16 columns
(`columnKind: utf16CodeUnits`) and lists every rule that exists in `tool.driver.rules`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from analysis.diagnostics import Diagnostic, Range, Severity
from analysis.document.display import (
    clip_message,
    escape_controls,
    escape_line,
    excerpt,
    utf16_range,
)
from analysis.document.source import SourceText

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


def _caret(source: SourceText, diagnostic: Diagnostic) -> list[str]:
    return excerpt(source, diagnostic.range)


def format_text(reports: list[FileReport]) -> str:
    lines: list[str] = []
    for report in reports:
        for diagnostic in report.diagnostics:
            start = diagnostic.range.start
            lines.append(escape_line(
                f"{report.path}:{start.line + 1}:{start.character + 1}: "
                f"{diagnostic.severity.label} {diagnostic.rule} "
                f"{clip_message(diagnostic.message)}"
            ))
            lines.extend(_caret(report.source, diagnostic))
    return "\n".join(lines) + ("\n" if lines else "")


def summary_line(reports: list[FileReport], fixed: Counter[str] | None = None) -> str:
    """`N files checked: E errors, W warnings` (text and github output's last line, on stderr),
    with `, F fixed` after `--fix`: what remains, and what the fixes took away."""
    counts = Counter(diagnostic.severity for report in reports for diagnostic in report.diagnostics)
    noun = "file" if len(reports) == 1 else "files"
    line = (f"{len(reports)} {noun} checked: {counts[Severity.ERROR]} errors, "
            f"{counts[Severity.WARNING]} warnings")
    return line if fixed is None else f"{line}, {fixed.total()} fixed"


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
    from analysis.checks.registry import RULES, docs_url

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
