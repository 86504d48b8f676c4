"""Small naming helpers shared by rules: "did you mean" and JavaScript's String(value)."""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """The most similar candidate (difflib ratio ≥ 0.6), for a "did you mean" hint and quick fix."""
    matches = difflib.get_close_matches(name, list(candidates), n=1)
    return matches[0] if matches else None


def did_you_mean(name: str, candidates: Iterable[str]) -> tuple[str, dict[str, str]]:
    """(" (did you mean 'x'?)", {"replacement": "x"}) or ("", {})."""
    match = closest(name, candidates)
    if match is None:
        return "", {}
    return f" (did you mean '{match}'?)", {"replacement": match}


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
