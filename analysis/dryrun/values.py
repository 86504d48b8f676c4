"""Values as they cross between the nodes of a dry run: JavaScript's `undefined` (a condition's
stored output), the JSON round trip, `===`, and the compact text a value is shown as."""

from __future__ import annotations

import json
from typing import Any

from sandbox.outcome import number_tag


class _Undefined:
    """A condition's stored output: present in the run's outputs map, but JavaScript `undefined`
    — dropped from `run.outputs` objects, `null` inside arrays."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()


def json_value(value: Any) -> Any:
    """A value as it comes back from a JSON round trip (what the next node sees)."""
    if value is UNDEFINED:
        return None
    tag = number_tag(value)
    if tag is not None:
        return 0 if tag == "-0" else None
    return value


def strictly_equal(left: Any, right: Any) -> bool:
    """JavaScript `===` over JSON values (`True == 1` is Python's, not JavaScript's)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return float(left) == float(right)
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    return left is None and right is None


def same_json(left: Any, right: Any) -> bool:
    """JSON equality without Python's `True == 1` (object key order does not matter)."""
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_json(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_json, left, right))
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return False
    return strictly_equal(left, right)


def value_text(value: Any) -> str:
    """A stored value as compact JSON text (`undefined` for a condition's)."""
    if value is UNDEFINED:
        return "undefined"
    tag = number_tag(value)
    if tag is not None:
        return tag
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
