"""Which workflow node, and which of its fields, a document offset is in: what a command acting
on "the node under the cursor" asks (`relavium.runWithSampleScope {"uri", "position"}`), so that
no editor has to read the YAML itself.

Contract:
- `node_at(workflow, offset)` (never raises) → the `Located` node of `workflow.nodes` holding the
  code-point `offset`, or None (outside every node, or between two of them).
- A node holds the offsets from its mapping's first character through its last value's last
  character, and the offset just after it (a cursor at the end of the line). A block item's
  first line counts from the line's start (its indentation and `- `): a cursor on the dash is
  in the item. Blank and comment lines after a node's last value are in no node.
- `Located.field` is the key of the node's entry holding the offset (from the key through its
  value's last character), None elsewhere in the node; `on_expression` says whether that entry
  is the node's expression field (`expression`, `transform`, `merge_fn`).
- Half-typed YAML has no model: a caller serving one passes the last good analysis's workflow
  and the offset mapped into that analysis's text (`server.lsp.serving.View`); a place that
  analysis never saw has no node.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.document.model import NodeDef, Workflow
from analysis.document.yaml_nodes import YMapping, YNode, YSequence

_BLANK = " \t\r\n"


@dataclass(frozen=True, slots=True)
class Located:
    node: NodeDef
    field: str | None

    @property
    def on_expression(self) -> bool:
        expression = self.node.expression
        return expression is not None and self.field == expression.name


def node_at(workflow: Workflow, offset: int) -> Located | None:
    text = workflow.source.text
    for node in workflow.nodes:
        mapping = node.mapping
        if mapping.start > offset and not _item_lead(text, offset, mapping.start):
            return None  # the nodes are in document order: the rest start later still
        if offset <= _content_end(text, mapping):
            return Located(node, _field_at(text, mapping, offset))
    return None


def _item_lead(text: str, offset: int, start: int) -> bool:
    """Whether `offset` is on the line where `start` is, before it, with only indentation and
    sequence dashes between the two."""
    line_start = text.rfind("\n", 0, start) + 1
    return line_start <= offset and text[line_start:start].strip(" \t-") == ""


def _content_end(text: str, node: YNode) -> int:
    """Where the node's last non-blank character ends. A block collection's span runs on to the
    next token, over blank and comment lines, so it ends with its last member instead."""
    end = node.end
    if isinstance(node, YMapping) and node.entries and text[node.start] != "{":
        end = _content_end(text, node.entries[-1].value)
    elif isinstance(node, YSequence) and node.items and text[node.start] != "[":
        end = _content_end(text, node.items[-1])
    return node.start + len(text[node.start : end].rstrip(_BLANK))


def _field_at(text: str, mapping: YMapping, offset: int) -> str | None:
    for entry in mapping.entries:
        if entry.key.start <= offset <= _content_end(text, entry.value):
            return entry.key.text
    return None
