"""Small naming helpers shared by rules: "did you mean", and JavaScript's String(value) and
Number(string) (how the engine matches a condition's edge handle to a branch `when`)."""

from __future__ import annotations

import difflib
import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from functools import cached_property

# How many name comparisons one `Suggestions` makes at most (~0.3 s of difflib at the worst).
MAX_COMPARISONS = 50_000


class Suggestions:
    """ "Did you mean" over one collection of names, asked about many unknown ones (a check
    builds it once): the most similar name by difflib's ratio (≥ 0.6), as
    `difflib.get_close_matches` finds it. Only names whose length allows a ratio of 0.6 (within
    a factor of 7/3) are compared, which changes no answer; the same unknown name is answered
    once; and after `MAX_COMPARISONS` comparisons, unknown names that would need more get no
    hint. Comparing each of m unknown names with all n made m·n comparisons: 2,000 misspelt
    references among 2,000 nodes took 30 s."""

    def __init__(self, names: Iterable[str]) -> None:
        self._given = names  # read at the first question: most checks find nothing to ask
        self._answers: dict[tuple[str, str | None], str | None] = {}
        self.budget = MAX_COMPARISONS

    @cached_property
    def _by_length(self) -> tuple[list[int], list[str]]:
        """The names sorted by length (stable: the given order within a length), and those
        lengths."""
        names = sorted(self._given, key=len)
        return [len(name) for name in names], names

    def closest(self, name: str, excluding: str | None = None) -> str | None:
        """The most similar name other than `excluding`, or None."""
        key = (name, excluding)
        if key not in self._answers:
            self._answers[key] = self._closest(name, excluding)
        return self._answers[key]

    def did_you_mean(self, name: str, excluding: str | None = None
                     ) -> tuple[str, dict[str, str]]:
        """(" (did you mean 'x'?)", {"replacement": "x"}) or ("", {})."""
        match = self.closest(name, excluding)
        if match is None:
            return "", {}
        return f" (did you mean '{match}'?)", {"replacement": match}

    def _closest(self, name: str, excluding: str | None) -> str | None:
        lengths, names = self._by_length
        # difflib's ratio is at most 2·min(a, b) / (a + b): 0.6 needs 3/7·a ≤ b ≤ 7/3·a
        low = bisect_left(lengths, -(-3 * len(name) // 7))
        high = bisect_right(lengths, len(name) * 7 // 3)
        if high - low > self.budget:
            return None
        self.budget -= high - low
        compared = [known for known in names[low:high] if known != excluding]
        matches = difflib.get_close_matches(name, compared, n=1)
        return matches[0] if matches else None


def did_you_mean(name: str, candidates: Iterable[str]) -> tuple[str, dict[str, str]]:
    """`Suggestions(candidates).did_you_mean(name)`, for one question about a collection."""
    return Suggestions(candidates).did_you_mean(name)


def article(word: str | None) -> str:
    return "an" if word and word[0] in "aeiou" else "a"


def js_string(value: object) -> str:
    """JavaScript's `String(value)` for YAML scalars: how a branch `when` becomes a handle."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int) and abs(value) <= 2**53:
        return str(value)
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, int):
        try:
            return _js_number(float(value))
        except OverflowError:  # beyond the largest double: JavaScript reads Infinity
            return "Infinity" if value > 0 else "-Infinity"
    return str(value)


def _js_number(value: float) -> str:
    """Number.prototype.toString (ECMA-262 Number::toString): the shortest round-trip digits,
    written out in full from 1e-6 to below 1e21 and in exponent form outside."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # n: where the decimal point sits relative to the digits (value = 0.digits × 10**n).
    point = len(whole) + int(exponent or 0) - (len(whole + fraction) - len(digits))
    digits = digits.rstrip("0")
    count = len(digits)
    if count <= point <= 21:
        text = digits + "0" * (point - count)
    elif 0 < point <= 21:
        text = f"{digits[:point]}.{digits[point:]}"
    elif -6 < point <= 0:
        text = "0." + "0" * -point + digits
    else:
        power = point - 1
        head = digits[0] + (f".{digits[1:]}" if count > 1 else "")
        text = f"{head}e{'+' if power >= 0 else '-'}{abs(power)}"
    return sign + text


# What JavaScript's String.prototype.trim and Number(string) strip (ECMA-262 WhiteSpace and
# LineTerminator): not Python's str.strip() set, which adds U+001C-U+001F and U+0085.
JS_WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                 "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
# StrNumericLiteral: a signed decimal (or Infinity), or an unsigned 0x/0o/0b integer; no `_`.
_JS_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)",
                         re.ASCII)
_JS_RADIX = {"x": (16, re.compile(r"[0-9a-fA-F]+", re.ASCII)),
             "o": (8, re.compile(r"[0-7]+", re.ASCII)), "b": (2, re.compile(r"[01]+", re.ASCII))}


def js_number(text: str) -> float:
    """JavaScript's `Number(text)` for a string: NaN where JavaScript reads NaN, 0 for blank."""
    text = text.strip(JS_WHITESPACE)
    if not text:
        return 0.0
    if len(text) > 2 and text[0] == "0" and text[1].lower() in _JS_RADIX:
        radix, digits = _JS_RADIX[text[1].lower()]
        if not digits.fullmatch(text, 2):
            return math.nan
        try:
            return float(int(text[2:], radix))  # int → float rounds to nearest, as JavaScript
        except OverflowError:
            return math.inf
    if not _JS_DECIMAL.fullmatch(text):
        return math.nan
    return float(text.replace("Infinity", "inf"))
