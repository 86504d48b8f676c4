"""`append_entry` and `remove_item` (analysis/document/edits.py): the text a fix writes reads
back as the same YAML plus (or minus) exactly the entry or item, in the document's own style."""

import pytest
import yaml

from analysis.document.edits import append_entry, newline_of, remove_item
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YMapping, YSequence
from analysis.document.yaml_read import read_yaml


def nodes(text: str) -> YSequence:
    root = read_yaml(SourceText(text)).root
    assert isinstance(root, YMapping)
    entry = root.get("nodes")
    assert entry is not None and isinstance(entry.value, YSequence)
    return entry.value


def applied(text: str, replacement: tuple[int, int, str] | None) -> str:
    assert replacement is not None
    start, end, new = replacement
    return text[:start] + new + text[end:]


@pytest.mark.parametrize("text", [
    "nodes:\n  - { id: g, type: human_gate }\n  - { id: h }\n",
    "nodes:\n  - id: g\n    type: human_gate  # a note\n  - id: h\n",
    "nodes:\n  - id: g\n    retry:\n      max: 2\n  - id: h\n",
    "nodes:\r\n  - id: g\r\n    type: human_gate\r\n",
    "nodes:\n  - id: g\n    message_template: a plain\n      scalar on two lines\n",
])
def test_append_entry_adds_exactly_the_entry(text: str) -> None:
    gate = nodes(text).items[0]
    assert isinstance(gate, YMapping)
    changed = applied(text, append_entry(text, gate, "timeout_ms: 60000", newline_of(text)))
    before, after = yaml.safe_load(text), yaml.safe_load(changed)
    assert after["nodes"][0] == {**before["nodes"][0], "timeout_ms": 60000}
    assert after["nodes"][1:] == before["nodes"][1:]
    assert ("\r\n" in changed) == ("\r\n" in text) and changed.count("\r") == changed.count("\r\n")


def test_append_entry_declines_after_a_block_scalar() -> None:
    text = "nodes:\n  - id: g\n    message_template: |+\n      kept\n\n"
    gate = nodes(text).items[0]
    assert isinstance(gate, YMapping)
    assert append_entry(text, gate, "timeout_ms: 1", "\n") is None


@pytest.mark.parametrize("text", [
    "nodes:\n  - { id: a }\n  - { id: b }  # stray\n  - { id: c }\n",
    "nodes:\n  - id: a\n  - id: b\n    type: transform\n\n  - id: c\n",
    "nodes:\n  - id: a\n  - id: b\n",
])
def test_remove_item_deletes_exactly_the_item(text: str) -> None:
    sequence = nodes(text)
    changed = applied(text, remove_item(text, sequence, sequence.items[1]))
    before = yaml.safe_load(text)["nodes"]
    assert yaml.safe_load(changed)["nodes"] == [before[0], *before[2:]]


def test_remove_item_declines_a_flow_sequence() -> None:
    text = "nodes: [{ id: a }, { id: b }]\n"
    sequence = nodes(text)
    assert remove_item(text, sequence, sequence.items[1]) is None
