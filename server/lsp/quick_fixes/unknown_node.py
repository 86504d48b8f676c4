"""`unknown-node`: replace the reference with the closest existing node id."""

from __future__ import annotations

import difflib

from lsprotocol import types

from server.lsp.quick_fixes import FixContext

RULES = ("unknown-node",)
MAX_SUGGESTIONS = 3


def fixes(context: FixContext) -> list[types.CodeAction]:
    written = context.text[context.start:context.end]
    unknown = next(
        (value for key in ("name", "id") if (value := context.data(key))),
        written.strip("'\" "),
    )
    at = written.find(unknown) if unknown else -1
    if at < 0:
        return []
    start = context.start + at
    existing = [node_id for node_id in context.workflow.nodes_by_id if node_id != unknown]
    # the rule's own "did you mean" first, then the next closest ids
    suggested = context.data("replacement")
    close = difflib.get_close_matches(unknown, existing, n=MAX_SUGGESTIONS, cutoff=0.5)
    matches = list(dict.fromkeys([suggested, *close] if suggested in existing else close))
    return [
        context.action(
            f"Change `{unknown}` to `{match}`",
            [(start, start + len(unknown), match)],
            preferred=index == 0,
        )
        for index, match in enumerate(matches)
    ]
