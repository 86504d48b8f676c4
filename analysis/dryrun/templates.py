"""The templates of an agent or gate as the engine resolves them before the node does anything:
the first reference that cannot be resolved (nothing, or an object without `| json`) fails the
node, and a dry run can tell which from the values it holds."""

from __future__ import annotations

import re
from typing import Any

from analysis.document.graph import Graph
from analysis.document.model import NodeDef, Workflow
from analysis.document.templates import TemplateRef

# what a supplied secret input, or a context entry derived from one, resolves to here: text the
# dry run never holds
SECRET_TEXT = "<secret>"
TEMPLATE_FIELDS = ("prompt_template", "system_prompt_append", "message_template", "assignee")


def unresolvable_template(
    node: NodeDef, pools: dict[str, dict[str, Any]], secret_inputs: list[str]
) -> tuple[str, tuple[int, int]] | None:
    """The engine's first template failure for this node, if it can be told before a call
    (`reference_problem`), and the reference's place in the document. `pools` are what
    references read: `inputs`, `ctx`, `run.outputs` (the visible stored outputs)."""
    for template in node.templates:
        if template.name not in TEMPLATE_FIELDS:
            continue
        for ref in template.references:
            pool = pools.get(ref.kind or "")
            if pool is None or ref.name is None or ref.name in secret_inputs:
                continue
            raw = template.value[ref.start:ref.end]
            problem = reference_problem(ref, raw, pool)
            if problem is not None:
                return f"`{raw}` in {template.name} {problem}", template.source_span(
                    ref.start, ref.end
                )
    return None


def context_failure(
    workflow: Workflow,
    graph: Graph,
    inputs: dict[str, Any],
    secret_inputs: list[str],
    rendered: dict[str, Any],
    sample_ctx: dict[str, Any],
) -> dict[str, Any] | None:
    """The run's error when the engine's run-start resolution of `context:` fails, else None.
    The engine resolves every entry once, in declared order, each reading the inputs and the
    entries before it, before any node runs, and fails the run (`validation`) on the first
    reference it cannot resolve (engine.ts `#resolveContextOrFail`, interpolation/resolve.ts
    `resolveContext`, HodeTech/Relavium 839f2bd; unchanged at 27438a0). A supplied secret
    input resolves to its (never seen) text; a key the samples' `ctx` gives is taken as given."""
    given = {name: SECRET_TEXT if name in secret_inputs else value
             for name, value in inputs.items()}
    ctx: dict[str, Any] = {}  # the entries resolved so far: what the next one may read
    for entry in workflow.context:
        key = entry.key
        if key is None or key in ctx:
            continue
        references = () if key in sample_ctx or entry.value is None else entry.value.references
        for ref in references:
            pool = given if ref.kind == "inputs" else ctx if ref.kind == "ctx" else None
            if pool is None or ref.name is None:
                continue
            assert entry.value is not None
            raw = entry.value.value[ref.start:ref.end]
            problem = reference_problem(ref, raw, pool)
            if problem is not None:
                return {
                    "code": "validation",
                    "message": f"context `{key}`: `{raw}` {problem}; the engine resolves the "
                               "context when the run starts, so no node ran",
                    "retryable": False,
                }
        ctx[key] = SECRET_TEXT if key in graph.secret_context else rendered.get(key)
    return None


def reference_problem(ref: TemplateRef, raw: str, pool: dict[str, Any]) -> str | None:
    """Why the engine's resolver (interpolation/resolve.ts `resolveReference`, `stringify`;
    filters.ts) surely fails on this reference over `pool`, or None when it resolves or this
    cannot tell: a reference that resolves to null/nothing without `| default(…)`, an
    object/array not turned into text by `| json` or `| length`, or `| read_file` given
    something other than a path string. What a file holds is the host's, so reading one stops
    the check."""
    found, value = _resolve_path(pool, ref)
    if found is None:
        return None  # a path this check cannot follow: the engine decides at run time
    missing = not found or value is None
    for applied in ref.filters:
        if applied.name == "default":
            if missing:
                value, missing = default_argument(raw), False
        elif applied.name == "read_file":
            if missing or not isinstance(value, str):
                return "gave `read_file` no file path string"
            return None
        else:
            return None
    if missing:
        return "resolved to no value — check the reference or add a `| default(…)` filter"
    if isinstance(value, dict | list):
        return (f"resolved to {'a list' if isinstance(value, list) else 'an object'} — add a "
                "`| json` filter to embed it as text")
    return None


def default_argument(reference: str) -> str:
    """The quoted literal of the reference's `| default('…')` (empty when not a quoted one)."""
    _, _, rest = reference.partition("default(")
    quote = rest[:1]
    return rest[1:].partition(quote)[0] if quote in ("'", '"') else ""


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
