"""Signature-style help for `branches[` in a merge_fn: what each index holds, as a VS Code user
sees a call's parameters while typing (`textDocument/signatureHelp`, triggered by `[`).

Contract: `branch_help(result, text, offset)` → `BranchHelp` when the cursor, in the live
`text`, is right after `branches[` (or `branches?.[`, an index being typed) in a merge node's
`merge_fn` the last good model knows; None elsewhere (strings, comments, another field). One
`Signature` per fan-in branch, in the engine's `branches` order, labelled `branches[0]: <its
output's type>`, documented with the branch's node and where its type comes from; `active` is
the typed index (0 before one is typed). Where a condition gates a branch, the engine's
`branches` holds only those that completed, so an index may name another one
(`analysis.ide.typed_reads`): one signature then, the element type any branch may give.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analysis.checks.analyze import AnalysisResult
from analysis.document.expressions.js_text import LiteralRegions
from analysis.ide.completion_text import Cursor
from analysis.ide.describe import code_span
from analysis.ide.typed_reads import typed_reads
from analysis.schema.value_types import AnyValue, union_of
from analysis.types.display import format_type

_BRANCH_INDEX = re.compile(
    r"(?<![A-Za-z0-9_$.])branches[ \t]*(?:\?\.[ \t]*)?\[[ \t]*(\d*)[ \t]*\Z")
_LABEL_WIDTH = 90


@dataclass(frozen=True)
class Signature:
    label: str
    documentation: str


@dataclass(frozen=True)
class BranchHelp:
    signatures: tuple[Signature, ...]
    active: int


def branch_help(result: AnalysisResult, text: str, offset: int) -> BranchHelp | None:
    workflow = result.workflow
    if workflow is None:
        return None
    cursor = Cursor(text, offset)
    field = cursor.field()
    if field is None or field.key != "merge_fn":
        return None
    code = field.value_prefix.lstrip(" \t") if field.same_line else cursor.prefix
    if field.same_line and code[:1] in ("'", '"'):
        code = code[1:]  # the YAML scalar's quote
    typed = _BRANCH_INDEX.search(code)
    if typed is None or LiteralRegions(code).contain(typed.start()):
        return None
    merge_id = cursor.sibling(field, "id")
    reads = typed_reads(workflow, result.graph, result.file_agent)
    branches = reads.branches(merge_id) if merge_id else None
    if branches is None or not branches.members:
        return None
    if not branches.by_index:
        element = union_of([output.type if output is not None else AnyValue()
                            for output in branches.outputs])
        label = f"branches[i]: {format_type(element, width=_LABEL_WIDTH)}"
        names = ", ".join(map(code_span, branches.members))
        return BranchHelp((Signature(label, (
            f"one of the branches that completed: {names}, in that order; a condition gates "
            "some of them, so an index may name a later branch")),), 0)
    signatures = []
    for index, (member, output) in enumerate(zip(branches.members, branches.outputs,
                                                  strict=True)):
        shown = format_type(output.type, width=_LABEL_WIDTH) if output is not None else "unknown"
        origin = f" — {output.origin}" if output is not None and output.origin else ""
        signatures.append(Signature(f"branches[{index}]: {shown}",
                                    f"the output of {code_span(member)}{origin}"))
    active = int(typed.group(1)) if typed.group(1) else 0
    return BranchHelp(tuple(signatures), min(active, len(signatures) - 1))
