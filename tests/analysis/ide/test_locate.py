"""`analysis.ide.locate.node_at`: the node and field under a code-point offset."""

import pytest

from analysis.checks.analyze import analyze
from analysis.document.model import Workflow
from analysis.ide.locate import node_at

BLOCK = """\
schema_version: '1.0'
workflow:
  id: locate
  inputs:
    - { name: ticket, type: string }
  nodes:
    - id: start
      type: input
    - id: classify
      label: "Klassifizierung — 😀 première étape"
      type: transform
      transform: |
        ({ severity: inputs.ticket.length })

    # the next node routes
    - id: route
      type: condition
      expression: 'run.outputs.classify.severity > 3 ? "urgent" : "normal"'
      branches:
        - { when: urgent, target_node: start }
      # trailing comment, in no node
  edges:
    - { from: start, to: classify }
"""


def workflow_of(text: str) -> Workflow:
    result = analyze(text)
    assert result.workflow is not None
    return result.workflow


def offset_of(text: str, needle: str, after: str = "", into: int = 0) -> int:
    """The code-point offset `into` characters into the first `needle` after `after`."""
    found = text.index(needle, text.index(after))
    return found + into


def located(text: str, offset: int) -> tuple[str | None, str | None, bool] | None:
    found = node_at(workflow_of(text), offset)
    return None if found is None else (found.node.id, found.field, found.on_expression)


@pytest.mark.parametrize(
    ("needle", "after", "into", "expected"),
    [
        ("- id: start", "", 0, ("start", None, False)),  # the dash
        ("    - id: start", "", 0, ("start", None, False)),  # the indentation before it
        ("id: start", "", 1, ("start", "id", False)),
        ("type: input", "", 11, ("start", "type", False)),  # just after the last character
        ("label", "", 2, ("classify", "label", False)),
        ("severity:", "", 3, ("classify", "transform", True)),  # inside the block scalar
        ("transform: |", "", 0, ("classify", "transform", True)),
        ("expression", "", 0, ("route", "expression", True)),
        ("branches", "", 0, ("route", "branches", False)),
        ("target_node", "", 0, ("route", "branches", False)),
        ("      type: condition", "", 2, ("route", None, False)),  # indentation, not the dash
    ],
)
def test_a_block_node_holds_its_lines_from_the_dash_to_its_last_value(
    needle: str, after: str, into: int, expected: tuple[str, str | None, bool]
) -> None:
    assert located(BLOCK, offset_of(BLOCK, needle, after, into)) == expected


@pytest.mark.parametrize(
    ("needle", "into"),
    [
        ("schema_version", 0),
        ("name: ticket", 0),  # an input, not a node
        ("  nodes:", 4),
        ("\n\n    # the next", 1),  # the blank line after a block scalar
        ("# the next node", 3),
        ("# trailing comment", 3),
        ("from: start", 0),
    ],
)
def test_places_outside_every_node_have_none(needle: str, into: int) -> None:
    assert located(BLOCK, offset_of(BLOCK, needle, into=into)) is None


def test_non_ascii_text_before_the_cursor_counts_in_code_points() -> None:
    text = BLOCK.replace("({ severity:", "('😀é' + { severity:")
    offset = offset_of(text, "severity", "😀é")
    assert len(text[:offset].encode("utf-16-le")) // 2 > offset  # the emoji is two UTF-16 units
    assert located(text, offset) == ("classify", "transform", True)
    # one code point before the label's closing quote is still the label
    assert located(text, offset_of(text, 'étape"')) == ("classify", "label", False)


FLOW = """\
schema_version: '1.0'
workflow:
  id: flow
  nodes: [{ id: start, type: input }, { id: double, type: transform, transform: "inputs.n * 2" }]
  edges:
    - { from: start, to: double }
"""


@pytest.mark.parametrize(
    ("needle", "into", "expected"),
    [
        ("{ id: start", 0, ("start", None, False)),
        ("type: input", 2, ("start", "type", False)),
        ("input }", 7, ("start", None, False)),  # just after the closing brace
        ('"inputs.n', 3, ("double", "transform", True)),
        ('2" }]', 4, ("double", None, False)),
        ("}, {", 2, None),  # between the two items
        ("[{", 0, None),
    ],
)
def test_flow_items_on_one_line_are_told_apart(
    needle: str, into: int, expected: tuple[str, str | None, bool] | None
) -> None:
    assert located(FLOW, offset_of(FLOW, needle, into=into)) == expected


def test_a_flow_item_below_a_dash_counts_from_the_dash() -> None:
    text = FLOW.replace(
        "  nodes: [{ id: start, type: input }, ",
        "  nodes:\n    - { id: start, type: input }\n    - ",
    ).replace('2" }]', '2" }')
    assert located(text, offset_of(text, "- { id: double")) == ("double", None, False)
    assert located(text, offset_of(text, "transform:")) == ("double", "transform", True)


def test_an_id_less_or_non_mapping_item_is_still_located_or_skipped() -> None:
    text = BLOCK.replace(
        "    - id: start\n      type: input\n", "    - just-text\n    - type: input\n"
    )
    assert located(text, offset_of(text, "just-text")) is None
    assert located(text, offset_of(text, "type: input")) == (None, "type", False)
    assert located(text, offset_of(text, "label")) == ("classify", "label", False)

