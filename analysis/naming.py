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
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    return str(value)
