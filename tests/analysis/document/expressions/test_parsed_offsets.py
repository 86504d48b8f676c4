"""ParsedExpression's node text: every node's, the wrapper's own parentheses included, is the
source between the node's code-point start and end (text() computes an ASCII source's inline)."""

from __future__ import annotations

import pytest
from tree_sitter import Node

from analysis.document.expressions.parsing import ParsedExpression


def _nodes(root: Node) -> list[Node]:
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node.children)
    return found


@pytest.mark.parametrize("source", [
    "run.outputs['a'].b + 1",
    "({ x: [1, 2], y: `t${inputs.z}` })",
    "é + '😀' + inputs.ü",  # not ASCII: through the code-point table
    "",
    "a // trailing comment",
    "1 <!-- hidden\n+ 2",
])
def test_node_text_is_the_source_between_its_offsets(source: str) -> None:
    parsed = ParsedExpression(source)
    for node in _nodes(parsed.root):
        start, end = parsed.start(node), parsed.end(node)
        assert 0 <= start <= end <= len(source)
        assert parsed.text(node) == source[start:end]


def test_the_wrapper_parentheses_have_no_text_and_the_expression_all_of_it() -> None:
    parsed = ParsedExpression("a + b")
    wrapper = parsed.root.named_children[0].named_children[0]
    assert [parsed.text(child) for child in wrapper.children] == ["", "a + b", ""]
