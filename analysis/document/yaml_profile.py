"""The engine's YAML decode profile (packages/core/src/yaml-decode.ts: the `yaml` npm package,
YAML 1.2 core schema, unknown tags not resolved, string keys, no merge keys, no aliases): how a
scalar's text resolves to a value, what text libyaml is given so that it reads what the engine's
decoder reads, and the size limit.

`yes`, `on`, `2024-01-01` are strings; `true`/`false`, `null`/`~`/empty, ints (decimal, `0o`,
`0x`) and floats resolve. An explicit core tag resolves when its own pattern matches the text,
quoted or not (`!!int '1000'` is 1000; `!!float 5` stays the string '5'); any other tag (`!env`,
`!!binary`, `!!timestamp`) leaves the plain text and is warned about. Unknown directives
(`%FOO`) are ignored.
"""

from __future__ import annotations

import math
import re

from analysis.diagnostics import Diagnostic, Severity
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import ScalarValue

MAX_SOURCE_BYTES = 2 * 1024 * 1024  # UTF-8

YAML_SYNTAX = "yaml-syntax"
DUPLICATE_KEY = "duplicate-key"
INVALID_VALUE = "invalid-value"

CORE_TAG = "tag:yaml.org,2002:"
STR_TAG = CORE_TAG + "str"
# Collection tags the engine's decoder takes as they are, without a word.
COLLECTION_TAGS = frozenset(CORE_TAG + name for name in ("seq", "map", "set", "omap", "pairs"))
CORE_SCALAR_TAGS = frozenset(CORE_TAG + name for name in ("int", "float", "bool", "null"))
_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+\Z")
_OCT = re.compile(r"0o[0-7]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
# `!!float` applies only where a float pattern of the core schema matches: a '.' or an exponent.
_TAGGED_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)"
                           r"[eE][-+]?[0-9]+)\Z")
_SPECIAL_FLOAT = {
    **{
        sign + inf: float(sign + "inf")
        for sign in ("", "+", "-")
        for inf in (".inf", ".Inf", ".INF")
    },
    ".nan": float("nan"), ".NaN": float("nan"), ".NAN": float("nan"),
}
# Scalars that can only be strings in the core schema start with none of these characters.
_MAYBE_NOT_STRING = frozenset("0123456789+-.~nNtTfF")


def _js_integer(value: int) -> int | float:
    """The integer as a JavaScript number: beyond 2**53 a double (infinite past the range)."""
    if abs(value) <= 2**53:
        return value
    try:
        return float(value)
    except OverflowError:
        return math.inf


def resolve_plain(text: str) -> ScalarValue:
    """The YAML 1.2 core-schema value of a plain (unquoted) scalar."""
    if text and text[0] not in _MAYBE_NOT_STRING:
        return text
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    number = _core_number(text)
    if number is not None:
        return number
    if _FLOAT.match(text):
        return float(text)
    return _SPECIAL_FLOAT.get(text, text)


def _core_number(text: str) -> int | float | None:
    """The value of an int (decimal, `0o`, `0x`) of the core schema, or None."""
    if _INT.match(text):
        # Up to 15 digits is exact either way; longer goes through float, as JavaScript reads
        # it (and a >4,300-digit int() would raise).
        return int(text) if len(text) <= 15 else float(text)
    if _OCT.match(text) or _HEX.match(text):
        return _js_integer(int(text[2:], 8 if text[1] == "o" else 16))
    return None


def resolve_tagged(tag: str, text: str) -> ScalarValue:
    """The value of a scalar with an explicit tag, as the engine's decoder reads it: a core
    scalar tag applies when its pattern matches the (decoded) text, else the text stays a
    string; `!!str`, `!` and every other tag give the text."""
    name = tag.removeprefix(CORE_TAG) if tag.startswith(CORE_TAG) else None
    if name == "null" and text in _NULL:
        return None
    if name == "bool" and text in _BOOL:
        return _BOOL[text]
    if name == "int":
        number = _core_number(text)
        return text if number is None else number
    if name == "float" and (_TAGGED_FLOAT.match(text) or text in _SPECIAL_FLOAT):
        return _SPECIAL_FLOAT.get(text) or float(text)
    return text


def tag_applies(tag: str, value: ScalarValue) -> bool:
    """Whether a scalar's tag did what it says (else it is warned about: the engine ignores it)."""
    if tag == STR_TAG:
        return True
    return tag in CORE_SCALAR_TAGS and not isinstance(value, str)


_PROLOG_LINE = re.compile(r"[^\n]*(?:\n|\Z)")
_YAML_VERSION = re.compile(r"[0-9]+\.[0-9]+\Z")


def _without_ignored_directives(text: str) -> str:
    """The text with the directives the engine's decoder passes over (an unknown `%FOO`, any
    `%YAML n.m`, once or twice) made comments of the same length, for libyaml, which refuses
    them. Only a prolog ended by `---` has directives; everything else is left to libyaml."""
    if "%" not in text[:1] and "\n%" not in text:
        return text
    lines: list[tuple[int, str]] = []
    for match in _PROLOG_LINE.finditer(text):
        line = match.group(0).rstrip("\r\n")
        if line.startswith("---") and line[3:4] in ("", " ", "\t", "\r"):
            break
        if line.startswith("%"):
            lines.append((match.start(), line))
        elif (line.strip() and not line.lstrip().startswith("#")) or match.end() == len(text):
            return text  # content before any `---`: not a prolog
    else:
        return text
    chars = list(text)
    for start, line in lines:
        words = line.split("#", 1)[0].split()
        if words[0] == "%TAG" or (words[0] == "%YAML" and (
                len(words) != 2 or not _YAML_VERSION.match(words[1]))):
            continue  # libyaml reads %TAG; a malformed %YAML is an error to both
        chars[start] = "#"
    return "".join(chars)


# YAML 1.1 line breaks that YAML 1.2 (the engine's decoder) reads as ordinary characters.
_OLD_BREAKS = "\x85\u2028\u2029"


def for_libyaml(text: str) -> tuple[str, dict[int, int] | None]:
    """The text as libyaml should see it to read what the engine's YAML 1.2 decoder reads, and
    the map from stand-ins back to the characters they replace. Every change keeps offsets:
    ignored directives become comments; NEL, LS and PS (line breaks to libyaml, content to
    YAML 1.2) become private-use characters the text does not use; a final line break is added
    when missing (a block scalar at the very end keeps its clipped newline, as in YAML 1.2)."""
    text = _without_ignored_directives(text)
    restore = None
    if any(ch in text for ch in _OLD_BREAKS):
        stand_ins = (chr(code) for code in range(0xF0000, 0xFFFFE) if chr(code) not in text)
        restore = {ord(stand_in): ord(ch) for ch, stand_in in zip(_OLD_BREAKS, stand_ins,
                                                                   strict=False)}
        text = text.translate({ch: stand_in for stand_in, ch in restore.items()})
    if text and not text.endswith(("\n", "\r")):
        text += "\n"
    return text, restore


def too_large(source: SourceText, size: str) -> Diagnostic:
    """The refusal of a source over the limit; `size` says how long it is ("…bytes")."""
    return Diagnostic(
        source.range(0, 0), Severity.ERROR, YAML_SYNTAX,
        f"the file is {size} long; Relavium refuses workflow sources over 2 MiB: "
        "split it or move large text into files",
    )

