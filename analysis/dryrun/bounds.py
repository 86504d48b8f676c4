"""The engine's size bounds on what a run holds, as a dry run applies them.

The facts (ADR-0087 §2; packages/core/src/engine/size-bounds.ts at 02eeb5f2 and the size checks
at the top of engine.ts `#settleCompleted`):
- a node's output is measured when the node completes, before it is kept or emitted, as the
  UTF-8 bytes of `JSON.stringify(output)` (an absent output, a condition's, is 0 bytes);
- over 256 KiB (262,144 bytes) the node fails: `validation`, not retryable, "node `ID` output
  is N bytes, above the limit of 262144";
- else the run's state total (every kept output's bytes, summed) plus this output over 4 MiB
  (4,194,304 bytes) fails the node the same way: "the workflow state is N bytes, above the limit
  of 4194304", N being that sum; only an output that passes both is added to the total;
- a media part's inline base64 (`{"type": "media", "source": {"kind": "base64", "data"}}`) is
  measured as the `media://sha256-…` handle the engine replaces it with (size-bounds.test.ts at
  c9de520: only inside a media part; an object that merely looks like a source counts in full).

JSON.stringify writes a shared reference once per place it appears, so a ladder of `concat`
merges doubles its size at every step without holding more objects. The measure below counts it
the same way but measures each object once (a memo by identity, whose entries hold the object so
that its identity cannot be reused), so its cost is the number of distinct objects, never the
size it finds; and it walks without recursion, as deep as a value nests.
"""

from __future__ import annotations

import re
from typing import Any

from analysis.dryrun.values import UNDEFINED
from analysis.naming import js_string

NODE_OUTPUT_BYTES = 256 * 1024
WORKFLOW_STATE_BYTES = 4 * 1024 * 1024

# what an inline media part's `data` is measured as: the handle's fixed length
MEDIA_HANDLE = "media://sha256-" + "0" * 64

# (object, its size) by id(object): the object is held so its id stays its own
Sizes = dict[int, tuple[Any, int]]

# Characters JSON.stringify writes as more than their UTF-8 bytes: `"` and `\` (2 bytes), the
# short escapes (2), other controls as \u00XX (6, one byte each in UTF-8), a lone surrogate as
# \uDXXX (6; Python's surrogatepass encoding counts it 3).
_ESCAPED = re.compile("[\x00-\x1f\"\\\\\ud800-\udfff]")
_EXTRA = {**{chr(code): 5 for code in range(0x20)},
          **{ch: 1 for ch in "\"\\\b\f\n\r\t"}}
# strings shorter than this are measured again rather than remembered
_REMEMBERED_STRING = 64


def breach(node_id: str, size: int, state: int) -> str | None:
    """The engine's message when an output of `size` bytes, with `state` bytes kept before it,
    fails its node; None when it is kept."""
    if size > NODE_OUTPUT_BYTES:
        return f"node `{node_id}` output is {size} bytes, above the limit of {NODE_OUTPUT_BYTES}"
    if state + size > WORKFLOW_STATE_BYTES:
        return (f"the workflow state is {state + size} bytes, above the limit of "
                f"{WORKFLOW_STATE_BYTES}")
    return None


def serialized_bytes(value: Any, known: Sizes) -> tuple[int, Sizes]:
    """The UTF-8 bytes of `JSON.stringify(value)` and the sizes measured on the way (to add to
    `known` once the value is kept: a value dropped must not leave its objects' ids behind).
    `known` holds the sizes of objects already measured."""
    if value is UNDEFINED:
        return 0, {}
    found: Sizes = {}
    sizes: list[int] = []  # the sizes of the values finished, in the order they finished
    # (value, None) to measure; (container, children count) to sum once its children are done
    stack: list[tuple[Any, int | None]] = [(value, None)]
    while stack:
        item, children = stack.pop()
        if children is not None:
            total = _frame(item, children)
            if children:
                total += sum(sizes[-children:])
                del sizes[-children:]
            found[id(item)] = (item, total)
            sizes.append(total)
            continue
        remembered = known.get(id(item)) or found.get(id(item))
        if remembered is not None:
            sizes.append(remembered[1])
        elif isinstance(item, dict):
            media = _is_media(item)
            members = [{**child, "data": MEDIA_HANDLE} if media and key == "source" else child
                       for key, child in item.items() if child is not UNDEFINED]
            stack.append((item, len(members)))
            stack.extend((child, None) for child in reversed(members))
        elif isinstance(item, list):
            stack.append((item, len(item)))
            stack.extend((child, None) for child in reversed(item))
        else:
            size = _scalar_bytes(item)
            if isinstance(item, str) and len(item) >= _REMEMBERED_STRING:
                found[id(item)] = (item, size)
            sizes.append(size)
    return sizes[0], found


def _frame(container: Any, children: int) -> int:
    """A container's own bytes: brackets, commas, and for an object each key with its colon."""
    commas = max(children - 1, 0)
    if isinstance(container, list):
        return 2 + commas
    return 2 + commas + sum(
        _scalar_bytes(key if isinstance(key, str) else js_string(key)) + 1
        for key, child in container.items() if child is not UNDEFINED
    )


def _is_media(item: dict[str, Any]) -> bool:
    source = item.get("source")
    return (item.get("type") == "media" and isinstance(source, dict)
            and source.get("kind") == "base64" and "data" in source)


def _scalar_bytes(value: Any) -> int:
    if value is None or value is UNDEFINED or value is True:
        return 4
    if value is False:
        return 5
    if isinstance(value, str):
        size = len(value.encode("utf-8", "surrogatepass")) + 2
        for escaped in _ESCAPED.findall(value):
            size += _EXTRA.get(escaped, 3)
        return size
    text = js_string(value)
    # NaN and ±Infinity (a number past the largest double too) are written as null
    return 4 if text in ("NaN", "Infinity", "-Infinity") else len(text)
