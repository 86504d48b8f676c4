"""What a `merge` node with a built-in `merge_strategy` stores, from its completed branches' values
in the plan's fan-in order (the engine's merge handler, node-handlers/; ADR-0091 as amended):
`concat` a list of them, `first` the first (none: null), `object_merge` their keys laid over one
another (every one a JSON object, else the node fails)."""

from __future__ import annotations

from typing import Any

from analysis.dryrun.values import json_value


def merged(strategy: str | None, branches: list[Any]) -> tuple[Any, str | None]:
    """The merged value and None, or None and why the node fails."""
    if strategy == "concat":
        return [json_value(value) for value in branches], None
    if strategy == "first":
        return (branches[0] if branches else None), None
    if strategy == "object_merge":
        result: dict[str, Any] = {}
        for value in branches:
            if not isinstance(value, dict):
                return None, "object_merge requires every branch output to be a JSON object"
            result.update(value)
        return result, None
    return None, f"unknown merge_strategy `{strategy}`"
