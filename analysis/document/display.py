"""Text from a document shown in a terminal, a log or an editor: controls escaped, CI log
commands neutralised, long messages clipped, a source line with a caret under a range, a range in
UTF-16 columns."""

from __future__ import annotations

import re
import unicodedata

from analysis.diagnostics import Position, Range
from analysis.document.source import SourceText

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


# A GitHub Actions runner executes two command forms found in any line a step prints
# (actions/runner src/Runner.Worker/ActionCommand.cs, TryParseV2 then TryParse): `::name::data`
# when the line, leading whitespace trimmed, starts with `::`, and the legacy `##[name]data`
# anywhere in the line. Its string matching may be culture-aware, which looks through format
# characters and combining marks, so those do not hide either form here.
def _ignorable(piece: str) -> bool:
    return len(piece) == 1 and unicodedata.category(piece) in ("Cf", "Mn", "Me")


def _visible_from(pieces: list[str], index: int) -> int:
    """The index of the first piece at or after `index` that is not ignorable (or the end)."""
    while index < len(pieces) and _ignorable(pieces[index]):
        index += 1
    return index


def _neutralise(pieces: list[str], line_start: bool) -> None:
    """In place, over one line's shown characters: the first colon of a leading `::` becomes
    `\\x3a` (when `line_start`: the pieces begin the line), and the second `#` of each `##[`
    becomes `\\x23`, so neither command form remains."""
    if line_start:
        first = 0
        while first < len(pieces) and (pieces[first].isspace() or _ignorable(pieces[first])):
            first += 1
        second = _visible_from(pieces, first + 1)
        if pieces[first : first + 1] == [":"] and pieces[second : second + 1] == [":"]:
            pieces[first] = "\\x3a"
    for hash_index in [index for index, piece in enumerate(pieces) if piece == "#"]:
        second = _visible_from(pieces, hash_index + 1)
        third = _visible_from(pieces, second + 1)
        if pieces[second : second + 1] == ["#"] and pieces[third : third + 1] == ["["]:
            pieces[second] = "\\x23"


def shown_pieces(line: str) -> list[str]:
    """Each character of `line` as `escape_line` shows it: one piece per code point."""
    pieces = [_shown(ch) for ch in line]
    _neutralise(pieces, line_start=True)
    return pieces


def blank_under(pieces: list[str]) -> str:
    """Blanks as wide as `pieces`, tabs kept, so a caret after them lines up in a terminal."""
    return "".join(piece if piece == "\t" else " " * len(piece) for piece in pieces)


def escape_line(line: str) -> str:
    """One line of terminal or CI-log output: `escape_controls`, and neither workflow-command
    form a CI runner would execute (docs/cli.md, "What the command line prints")."""
    if line.isprintable() and "#" not in line:
        head = line.lstrip()[:1]
        if head != ":" and not _ignorable(head):
            return line
    return "".join(shown_pieces(line))


# JSON output reaches the same logs: `#` (the legacy command form can sit in any string) and the
# characters text output escapes, written as `\uXXXX`, which any JSON reader decodes to the same
# data. JSON's own escaping covers C0 controls; a structural character starts every line.
_JSON_ESCAPED = re.compile(
    "[#\x7f-\x9f\ud800-\udfff" + "".join(sorted(_BIDI_CONTROLS | _LINE_SEPARATORS)) + "]"
)


def escape_json_text(dumped: str) -> str:
    """`json.dumps` output with `#`, C1 and bidi controls, line separators and lone surrogates
    as `\\u` escapes; nothing else changes."""
    return _JSON_ESCAPED.sub(lambda match: f"\\u{ord(match.group()):04x}", dumped)


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
    _neutralise(shown, line_start=offset == 0)
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
    indent = blank_under(shown[first:start])
    width = sum(len(piece) for piece in shown[start : min(end, last)])
    return [f"  {prefix}{''.join(shown[first:last])}{suffix}",
            f"  {' ' * len(prefix)}{indent}^{'~' * max(width - 1, 0)}"]


def excerpt(source: SourceText, range_: Range) -> list[str]:
    """The range's first line, escaped and clipped, with a caret line under the range."""
    start, end = range_.start, range_.end
    if start.line >= source.line_count:
        return []
    line = source.line_text(start.line)
    return _excerpt(line, start.character, end.character if end.line == start.line else len(line))


def _utf16(source: SourceText, position: Position) -> dict[str, int]:
    return {"line": position.line, "character": source.utf16_character(position)}


def utf16_range(source: SourceText, range_: Range) -> dict[str, dict[str, int]]:
    """The range as JSON: 0-based lines, UTF-16 columns (as LSP and `check --format json`)."""
    return {"start": _utf16(source, range_.start), "end": _utf16(source, range_.end)}
