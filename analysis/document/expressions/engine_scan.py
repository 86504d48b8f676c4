"""An exact emulation of the engine's parse-time scan for literal `run.outputs` reads (ADR-0093).

The engine refuses a workflow whose expression literally reads the output of a node that is not an
ancestor of the reading node, and it finds those reads with a deliberately conservative text scan,
not a parser. Whatever that scan reports, the engine refuses, so a read found here is an error;
whatever it misses, the engine accepts (and the read yields `undefined` at run time). Emulating it
character for character is what lets the editor say which of the two will happen.

The scan, as the engine runs it:

1. Mask the text: string literals, template literals and `//` / `/* */` comments become NUL. It
   gives up entirely (reports nothing) on any other `/` (regex or division), `<!--` or `-->`, a
   `${` inside a template, or an unterminated string, template or block comment.
2. Give up if the masked code holds a backslash (an identifier escape such as `r\\u0075n`) or any
   `run` token not followed by `.` / `?.` (a possible rebinding of `run`).
3. Match `run.outputs["id"]` / `['id']` (a plain quoted key, no quotes or backslash inside) and
   `run.outputs.id` (an ASCII identifier), whitespace around `.`, `[` and `?.` allowed, against the
   ORIGINAL text; keep a match only when its `run` starts in code and is a free reference (the
   nearest code character before it is not `.`, `?` or an identifier character).

Differences from the engine's JavaScript are only representational: the engine indexes UTF-16
code units, so in its backward walk an astral character before `run` is a lone surrogate, which is
neither whitespace nor an identifier character; this module reproduces that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analysis.document.expressions.js_text import JS_WHITESPACE_CLASS, is_id_continue

_NUL = "\0"
_WS = JS_WHITESPACE_CLASS

# The engine's two access patterns. `(?<![.?\w$])` uses JS `\w` without the `u` flag: ASCII only.
_BRACKET_ACCESS = re.compile(
    rf"(?<![.?A-Za-z0-9_$])run{_WS}*\??\.{_WS}*outputs{_WS}*(?:\?\.{_WS}*)?\["
    rf"{_WS}*(['\"])([^'\"\\]*)\1{_WS}*\]"
)
_DOT_ACCESS = re.compile(
    rf"(?<![.?A-Za-z0-9_$])run{_WS}*\??\.{_WS}*outputs{_WS}*\??\.{_WS}*([A-Za-z_$][A-Za-z0-9_$]*)"
)
_MEMBER_CONTINUATION = re.compile(rf"{_WS}*\??\.")
_IS_JS_WHITESPACE = re.compile(_WS)
# The characters where masking may have to act; runs of anything else are copied unchanged.
_SPECIAL = re.compile(r"[/'\"`<-]")


@dataclass(frozen=True, slots=True)
class EngineRead:
    """One access the engine's scan accepts; offsets are code points into the expression."""

    node_id: str
    form: str  # "bracket" | "dot"
    key_start: int
    key_end: int
    access_start: int
    access_end: int


def mask_literals(text: str) -> str | None:
    """The text with literals and comments replaced by NUL, or None where the engine gives up."""
    out: list[str] = []
    i = 0
    length = len(text)
    while i < length:
        special = _SPECIAL.search(text, i)
        if special is None:
            out.append(text[i:])
            break
        j = special.start()
        out.append(text[i:j])  # ordinary code, copied as is
        char = text[j]
        following = text[j + 1] if j + 1 < length else ""
        if char == "/" and following == "/":
            stop = text.find("\n", j)
            stop = length if stop == -1 else stop
            out.append(_NUL * (stop - j))
            i = stop
        elif char == "/" and following == "*":
            close = text.find("*/", j + 2)
            if close == -1:
                return None
            out.append(_NUL * (close + 2 - j))
            i = close + 2
        elif char == "/" or text.startswith("<!--", j) or text.startswith("-->", j):
            return None
        elif char in "'\"`":
            end = _literal_end(text, j, char)
            if end is None:
                return None
            out.append(_NUL * (end - j))
            i = end
        else:  # a `<` or `-` that starts no HTML-like comment
            out.append(char)
            i = j + 1
    return "".join(out)


# The rest of a literal after its opening quote, through the closing one: a backslash escapes the
# next character; a template gives up at its first `${` (no match: the caller gives up too).
_LITERAL_REST = {
    "'": re.compile(r"(?:[^'\\]|\\.)*'", re.DOTALL),
    '"': re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL),
    "`": re.compile(r"(?:[^`\\$]|\\.|\$(?!\{))*`", re.DOTALL),
}


def _literal_end(text: str, start: int, quote: str) -> int | None:
    """One past the closing quote of the literal opened at `start`, or None (give up)."""
    rest = _LITERAL_REST[quote].match(text, start + 1)
    return None if rest is None else rest.end()


def _rebinds_run(code: str) -> bool:
    """Any `run` token not followed by `.` / `?.` (the engine treats it as a possible binding)."""
    start = code.find("run")
    while start != -1:
        end = start + 3
        before_ok = start == 0 or not _is_identifier_tail(code[start - 1])
        after_ok = end >= len(code) or not _is_identifier_tail(code[end])
        if before_ok and after_ok and _MEMBER_CONTINUATION.match(code, end) is None:
            return True
        start = code.find("run", start + 1)
    return False


def _is_identifier_tail(char: str) -> bool:
    return char == "$" or is_id_continue(char)


def _is_free_run(mask: str, index: int) -> bool:
    """The engine's backward walk from `run`: skip NUL and whitespace, then test one character."""
    i = index - 1
    while i >= 0:
        char = mask[i]
        if char == _NUL or _IS_JS_WHITESPACE.match(char):
            i -= 1
            continue
        if ord(char) > 0xFFFF:
            return True  # a lone surrogate to the engine: not `.`, `?` or an identifier character
        return not (char in ".?$" or is_id_continue(char))
    return True


def engine_output_reads(expression: str) -> tuple[EngineRead, ...]:
    """Every access the engine's scan accepts, in source order (each occurrence, not deduped)."""
    if "run" not in expression:
        return ()
    mask = mask_literals(expression)
    if mask is None or "\\" in mask or _rebinds_run(mask):
        return ()
    reads: list[EngineRead] = []
    for pattern, group, form in ((_BRACKET_ACCESS, 2, "bracket"), (_DOT_ACCESS, 1, "dot")):
        for match in pattern.finditer(expression):
            node_id = match.group(group)
            if node_id and mask[match.start()] != _NUL and _is_free_run(mask, match.start()):
                reads.append(
                    EngineRead(
                        node_id=node_id,
                        form=form,
                        key_start=match.start(group),
                        key_end=match.end(group),
                        access_start=match.start(),
                        access_end=match.end(),
                    )
                )
    reads.sort(key=lambda read: read.key_start)
    return tuple(reads)
