"""The templates of an agent or gate as the engine resolves them before the node does anything:
the first reference that cannot be resolved (nothing, or an object without `| json`) fails the
node, and a dry run can tell which from the values it holds."""

from __future__ import annotations

import re
from typing import Any

from analysis.document.model import NodeDef
from analysis.document.templates import TemplateRef

TEMPLATE_FIELDS = ("prompt_template", "system_prompt_append", "message_template", "assignee")


def unresolvable_template(
    node: NodeDef, pools: dict[str, dict[str, Any]], secret_inputs: list[str]
) -> tuple[str, tuple[int, int]] | None:
    """The engine's first template failure for this node, if it can be told before a call
    (a reference that resolves to null/nothing without `| default(…)`, or an object/array
    without `| json`), and the reference's place in the document. `pools` are what references
    read: `inputs`, `ctx`, `run.outputs` (the visible stored outputs)."""
    for template in node.templates:
        if template.name not in TEMPLATE_FIELDS:
            continue
        for ref in template.references:
            pool = pools.get(ref.kind or "")
            if pool is None or ref.name is None or ref.name in secret_inputs:
                continue
            found, value = _resolve_path(pool, ref)
            if found is None:
                continue  # a path this check cannot follow: the engine decides at run time
            filters = {f.name for f in ref.filters}
            raw = template.value[ref.start:ref.end]
            where = template.source_span(ref.start, ref.end)
            if not filters and (not found or value is None):
                return (f"`{raw}` in {template.name} resolved to no value — check the "
                        "reference or add a `| default(…)` filter"), where
            if not filters and isinstance(value, dict | list):
                return (f"`{raw}` in {template.name} resolved to "
                        f"{'a list' if isinstance(value, list) else 'an object'} — add a "
                        "`| json` filter to embed it as text"), where
    return None


_SEGMENT = re.compile(
    r"\s*(?:\.\s*(?P<name>[A-Za-z_$][A-Za-z0-9_$-]*)"
    r"|\[\s*(?:(?P<q>[\"'])(?P<key>[^\"'\\]*)(?P=q)|(?P<index>\d+))\s*\])"
)
_HEAD_END = re.compile(r"\s*(?:[\"']\s*\])?")


def _resolve_path(pool: dict[str, Any], ref: TemplateRef) -> tuple[bool | None, Any]:
    """(found, value) of the reference's path in `pool`; found is None when the path is not one
    this reader follows."""
    assert ref.name is not None
    # where the name ends in the body (after `{{`): searching the body for the name would find
    # `s` inside `inputs` for `{{ inputs.s }}`
    name_end = ref.name_end - ref.start - 2
    if not 0 < name_end <= len(ref.body):
        return None, None
    rest = ref.body[name_end:]
    index = _HEAD_END.match(rest)
    position = index.end() if index else 0
    if ref.name not in pool:
        return False, None
    value: Any = pool[ref.name]
    while True:
        match = _SEGMENT.match(rest, position)
        if match is None:
            break
        position = match.end()
        key = match.group("name") or match.group("key")
        if key is not None and isinstance(value, dict) and key in value:
            value = value[key]
        elif match.group("index") is not None and isinstance(value, list) and int(
            match.group("index")
        ) < len(value):
            value = value[int(match.group("index"))]
        else:
            return False, None
    tail = rest[position:].strip()
    if tail and not tail.startswith("|"):
        return None, None
    return True, value
