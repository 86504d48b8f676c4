"""Whether an input's `default` satisfies the input's own contract, as the newest engine decides
at load (ADR-0083 §3/§4/§6 as amended; the newest `packages/shared/src/workflow.ts`,
`WorkflowInputSchema` step 4 → `violatesInputContract`, and `containsInterpolation`).

Contract: `contract_problem(value, input_type, validation)` → why the default (a YAML value) breaks
its declared type or `validation` block, in the engine's order (type, enum, min, max, min_length,
max_length, format, pattern), or None — None too where the answer would need JavaScript's regex
engine and the pattern is outside the subset read the same way here (`_pattern_matches`).
`interpolations(node)` → the strings, at any depth up to the engine's 32, that hold a terminated
`{{ … }}` pair: only a pair is a reference to the engine's lexer, a lone `{{` is text.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterator

from analysis.document.yaml_nodes import YMapping, YNode, YScalar, YSequence
from analysis.schema.formats import regex_problem

# ECMAScript's \s (WhiteSpace and LineTerminator): Python's differs (it has \x85, lacks \ufeff).
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_NO_CTRL = f"[^{_JS_SPACE}\\x00-\\x1f\\x7f]"
_NO_CTRL_NO_AT = f"[^{_JS_SPACE}\\x00-\\x1f\\x7f@]"
_NO_CTRL_LABEL = f"[^{_JS_SPACE}\\x00-\\x1f\\x7f@.]"
# The engine's FORMAT_CHECKS, written for Python's `re`: ASCII classes spelled out (JavaScript's
# \d and a non-unicode /i fold only ASCII) and \Z for `$` (Python's `$` also matches before a
# final newline).
FORMAT_CHECKS = {
    "email": re.compile(f"{_NO_CTRL_NO_AT}+@{_NO_CTRL_LABEL}+(?:\\.{_NO_CTRL_LABEL}+)+\\Z"),
    "uri": re.compile(f"[A-Za-z][A-Za-z0-9+.-]*:{_NO_CTRL}+\\Z"),
    "uuid": re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                       r"[0-9a-fA-F]{12}\Z"),
    "date-time": re.compile(
        r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[Tt](?:[01][0-9]|2[0-3]):"
        r"[0-5][0-9]:(?:[0-5][0-9]|60)(?:\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
        r"\Z"),
}
MAX_DEFAULT_DEPTH = 32  # containsInterpolation stops looking deeper (the type check refuses it)
_STRING_TYPES = ("string", "file_path", "code_diff", "secret")
# A pattern read the same by JavaScript and Python, and matched in bounded time: no escapes,
# groups, `$`, counted repetition or empty classes, and at most two quantifiers.
_PLAIN_PATTERN = re.compile(r"[^\\(){}$]*\Z")
_JS_LINE_BREAKS = re.compile("[\r\u2028\u2029]")  # JavaScript's `.` stops at these too


def interpolations(node: YNode, depth: int = 0) -> Iterator[YScalar]:
    if isinstance(node, YScalar):
        text = node.value
        if isinstance(text, str) and (opened := text.find("{{")) != -1 and (
                text.find("}}", opened + 2) != -1):
            yield node
    elif depth < MAX_DEFAULT_DEPTH and isinstance(node, YMapping):
        for entry in node.entries:
            yield from interpolations(entry.value, depth + 1)
    elif depth < MAX_DEFAULT_DEPTH and isinstance(node, YSequence):
        for item in node.items:
            yield from interpolations(item, depth + 1)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def type_matches(value: object, input_type: str) -> bool:
    """The engine's matchesDeclaredType: a finite number, a boolean, or a string."""
    if input_type == "number":
        return _is_number(value) and math.isfinite(value)  # type: ignore[arg-type]
    if input_type == "boolean":
        return isinstance(value, bool)
    return input_type in _STRING_TYPES and isinstance(value, str)


def _same(member: object, value: object) -> bool:
    """JavaScript's Object.is for the primitives an enum may hold (0 and -0 differ)."""
    if _is_number(member) and _is_number(value):
        return member == value and math.copysign(1, member) == math.copysign(1, value)  # type: ignore[arg-type]
    return type(member) is type(value) and member == value


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _pattern_matches(pattern: str, value: str) -> bool | None:
    """Whether `^(?:pattern)$` (flagless) matches `value` in JavaScript; None when unknown here."""
    # JavaScript without the u flag reads an astral character as two code units, Python as one
    if (not _PLAIN_PATTERN.match(pattern) or "[]" in pattern or "[^]" in pattern
            or sum(pattern.count(q) for q in "*+?") > 2 or regex_problem(pattern) is not None
            or _JS_LINE_BREAKS.search(value)
            or any(ord(ch) > 0xFFFF for ch in value + pattern)):
        return None
    try:
        with warnings.catch_warnings():  # `[[` warns of future set syntax; it reads the same
            warnings.simplefilter("ignore")
            compiled = re.compile(f"(?:{pattern})")
    except re.error:
        return None
    return compiled.fullmatch(value) is not None


def _scalar(validation: YMapping | None, key: str) -> object:
    entry = validation.get(key) if validation is not None else None
    return entry.value.value if entry is not None and isinstance(entry.value, YScalar) else None


def contract_problem(value: object, input_type: str,
                     validation: YMapping | None) -> str | None:
    if not type_matches(value, input_type):
        wanted = ("a finite number" if input_type == "number"
                  else "true or false" if input_type == "boolean" else "a string")
        return f"a {input_type} input takes {wanted}"
    enum = validation.get("enum") if validation is not None else None
    if enum is not None and isinstance(enum.value, YSequence):
        members = [item.value for item in enum.value.items if isinstance(item, YScalar)]
        if len(members) == len(enum.value.items) and not any(_same(m, value) for m in members):
            return "it is not one of the input's validation.enum values"
    if _is_number(value):
        low, high = _scalar(validation, "min"), _scalar(validation, "max")
        if _is_number(low) and value < low:  # type: ignore[operator]
            return "it is below the input's validation.min"
        if _is_number(high) and value > high:  # type: ignore[operator]
            return "it is above the input's validation.max"
        return None
    if not isinstance(value, str):
        return None
    shortest, longest = _scalar(validation, "min_length"), _scalar(validation, "max_length")
    length = _utf16_length(value)  # JavaScript's .length: UTF-16 code units
    if _is_number(shortest) and length < shortest:  # type: ignore[operator]
        return "it is shorter than the input's validation.min_length"
    if _is_number(longest) and length > longest:  # type: ignore[operator]
        return "it is longer than the input's validation.max_length"
    check = FORMAT_CHECKS.get(str(_scalar(validation, "format")))
    if check is not None and not check.match(value):
        return f"it is not a valid {_scalar(validation, 'format')}"
    pattern = _scalar(validation, "pattern")
    if isinstance(pattern, str) and _pattern_matches(pattern, value) is False:
        return "it does not match the input's validation.pattern"
    return None
