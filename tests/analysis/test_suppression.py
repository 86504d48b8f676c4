"""Inline suppression: `# relavium-lsp: ignore[rule-id]` on the line or on the node."""

from analysis import AnalysisResult, analyze

HEAD = """\
schema_version: '1.0'
workflow:
  id: demo
  nodes:
    - { id: start, type: input }
"""
TAIL = """
  edges:
    - { from: start, to: done }
"""


def run(nodes: str) -> AnalysisResult:
    return analyze(HEAD + nodes + TAIL)


def rules(nodes: str) -> list[str]:
    return [d.rule for d in run(nodes).diagnostics]


def test_without_a_comment_the_diagnostics_are_reported() -> None:
    assert rules("    - { id: done, type: output, colour: red, shade: dark }") == [
        "unknown-key", "unknown-key"]


def test_comment_on_the_line_suppresses_that_rule_only() -> None:
    nodes = """\
    - id: done
      type: output
      colour: red  # relavium-lsp: ignore[unknown-key]
      save_to: '{{ inputs.nope }}'  # relavium-lsp: ignore[unknown-key]"""
    assert rules(nodes) == ["invalid-template"]


def test_comment_above_a_node_suppresses_inside_the_whole_node() -> None:
    nodes = """\
    # relavium-lsp: ignore[unknown-key, invalid-template]
    - id: done
      type: output
      colour: red
      save_to: '{{ inputs.nope }}'
    - { id: other, type: output, shade: dark }"""
    result = run(nodes)
    assert [(d.rule, d.range.start.line) for d in result.diagnostics] == [
        ("unreachable-node", 10), ("unknown-key", 10)]
    assert sorted(d.rule for d in result.suppressed) == ["invalid-template", "unknown-key"]


def test_comment_on_the_first_line_of_a_node_and_wildcard() -> None:
    nodes = """\
    - id: done  # relavium-lsp: ignore[*]
      type: output
      colour: red"""
    assert rules(nodes) == []


def test_hash_inside_a_block_scalar_is_text_not_a_suppression() -> None:
    nodes = """\
    - id: done
      type: output
      save_to: |
        {{ inputs.nope }}  # relavium-lsp: ignore[invalid-template]"""
    assert rules(nodes) == ["invalid-template"]
