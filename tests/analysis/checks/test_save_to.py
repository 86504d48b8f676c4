"""An output node's `save_to` is a relative path inside the workspace, as the engine requires."""

import pytest

from analysis.checks.analyze import analyze

TEMPLATE = """schema_version: '1.0'
workflow:
  id: saves
  nodes: [{{ id: done, type: output, save_to: {save_to} }}]
  edges: []
"""


@pytest.mark.parametrize("save_to, problem", [
    ("'/etc/{{ run.id }}'", "is an absolute path"),
    ("'C:/out/{{ run.id }}'", "is an absolute path"),
    (r"'\\server\share\x'", "is an absolute path"),
    ("'../out/{{ run.id }}.md'", "'..' segment"),
    (r"'out\..\..\x'", "'..' segment"),
    ("''", "must not be empty"),
])
def test_a_path_the_engine_refuses_is_invalid(save_to: str, problem: str) -> None:
    result = analyze(TEMPLATE.format(save_to=save_to))
    [diagnostic] = result.diagnostics
    assert diagnostic.rule == "invalid-value" and problem in diagnostic.message
    assert diagnostic.message.startswith("workflow.nodes[0] (done).save_to")
    start = result.source.offset(diagnostic.range.start)
    assert result.source.text[start:].startswith(save_to)


@pytest.mark.parametrize("save_to", ["'out/{{ run.id }}.md'", "'out/x..y/{{ run.id }}'", "a.txt",
                                     "'./out/{{ run.id }}'"])
def test_a_relative_path_is_clean(save_to: str) -> None:
    assert analyze(TEMPLATE.format(save_to=save_to)).diagnostics == []
