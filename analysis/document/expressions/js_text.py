"""JavaScript lexical facts the scans need: whitespace, identifier characters, escape decoding.

Each decoder returns None when the text is not something it can decode with certainty; callers
treat None as "not a literal" and stay silent, never guessing a value.
"""

from __future__ import annotations

import re

# ECMAScript WhiteSpace + LineTerminator (what a JS regex `\s` matches). Python's `\s` differs:
# it also matches U+001C..U+001F and U+0085 and misses U+FEFF.
JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
JS_WHITESPACE_CLASS = f"[{JS_WHITESPACE}]"

# Python's str.isidentifier() tests XID_Continue from Python's Unicode database (14.0 on 3.11).
# ID_Continue adds the characters XID's NFKC closure drops, and Unicode 15.1 added ZWNJ/ZWJ,
# which the engine's Node already treats as ID_Continue.
_ID_CONTINUE_NOT_XID = frozenset(
    "\u037a\u309b\u309c\ufc5e\ufc5f\ufc60\ufc61\ufc62\ufc63\ufdfa\ufdfb"
    "\ufe70\ufe72\ufe74\ufe76\ufe78\ufe7a\ufe7c\ufe7e\u200c\u200d"
)


def is_id_continue(char: str) -> bool:
    """Unicode ID_Continue for one code point (the property a JS `\\p{ID_Continue}` tests)."""
    return char in _ID_CONTINUE_NOT_XID or ("a" + char).isidentifier()


_IDENTIFIER_ESCAPE = re.compile(r"\\u(?:\{([0-9A-Fa-f]+)\}|([0-9A-Fa-f]{4}))")


def decode_identifier(raw: str) -> str | None:
    """The name an identifier token denotes: `r\\u0075n` is `run`."""
    if "\\" not in raw:
        return raw
    try:
        decoded = _IDENTIFIER_ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), raw)
    except (ValueError, OverflowError):
        return None
    return None if "\\" in decoded else decoded


_SINGLE_ESCAPES = {
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_LINE_TERMINATORS = "\n\r\u2028\u2029"
_ESCAPE = re.compile(
    r"\\(?:u\{([0-9A-Fa-f]+)\}|u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2})|(\r\n)|([0-9])|(.)|$)",
    re.DOTALL,
)


def decode_string_body(body: str, *, template: bool = False) -> str | None:
    """The value of a string literal's text between its quotes (or a template's cooked text).

    Legacy octal escapes (`\\1`) are refused by strict code, so they decode to None (no value).
    """
    if template:
        # A template's cooked value normalises raw CR LF and CR line breaks to LF.
        body = body.replace("\r\n", "\n").replace("\r", "\n")
    if "\\" not in body:
        return body
    failed = False

    def replace(match: re.Match[str]) -> str:
        nonlocal failed
        braced, four, two, crlf, digit, other = match.groups()
        hex_digits = braced or four or two
        if hex_digits is not None:
            code = int(hex_digits, 16)
            if code > 0x10FFFF:
                failed = True
                return ""
            return chr(code)
        if crlf is not None:
            return ""
        if digit is not None:
            if digit == "0" and not _digit_follows(match):
                return "\0"
            failed = True
            return ""
        if other is None or other in "ux":  # a dangling backslash or a malformed \u / \x
            failed = True
            return ""
        if other in _LINE_TERMINATORS:
            return ""
        return _SINGLE_ESCAPES.get(other, other)

    decoded = _ESCAPE.sub(replace, body)
    return None if failed else decoded


def _digit_follows(match: re.Match[str]) -> bool:
    following = match.string[match.end() : match.end() + 1]
    return following.isascii() and following.isdigit()


class LiteralRegions:
    """Whether places of `text` fall inside a string, template or comment, read left to right
    with an unterminated literal running to the end (where tree-sitter's error recovery guesses).

    Ask about places in increasing order: the scan resumes where the last question left it, so
    asking about every `{{` of a text costs one pass over it, not one pass per question.

    Every `/` that opens no comment is taken for division, so a regex holding a quote can make
    this answer True for code: callers use it only to stay quiet.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._scanned = 0  # where the scan resumes: the end of the last region passed
        self._region = (0, 0)  # the last region found, [start, end)
        self._asked = 0

    def contain(self, index: int) -> bool:
        assert index >= self._asked, "ask in increasing order"
        self._asked = index
        start, end = self._region
        if start <= index < end:
            return True
        text, length, i = self.text, len(self.text), self._scanned
        while i <= index and i < length:
            char = text[i]
            if char == "/" and text.startswith("/", i + 1):
                end = text.find("\n", i)
            elif char == "/" and text.startswith("*", i + 1):
                end = text.find("*/", i + 2)
                end = -1 if end == -1 else end + 2
            elif char in "'\"`":
                end = _quote_end(text, i)
            else:
                i += 1
                continue
            end = length if end == -1 else end
            self._region = (i, end)
            i = end
            if index < end:
                break
        self._scanned = i
        start, end = self._region
        return start <= index < end


def _quote_end(text: str, start: int) -> int:
    """One past the quote closing the literal opened at `start`; -1 when unterminated."""
    quote = text[start]
    j = start + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
        elif text[j] == quote:
            return j + 1
        else:
            j += 1
    return -1
