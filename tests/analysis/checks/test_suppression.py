"""Inline suppression: `# relavium-lsp: ignore[rule-id]` on the line or on the node."""

from analysis.checks.analyze import AnalysisResult, analyze
from tests.operations import lines_executed

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


def commented_nodes(count: int) -> str:
    """`count` nodes, each under a suppression comment (of another rule) and each with a
    finding, one flow-style list with `count` items on one line besides."""
    nodes = "".join(
        "    # relavium-lsp: ignore[unreachable-node]\n"
        f"    - {{ id: t{i}, type: transform, transform: 'run.outputs.missing{i}' }}\n"
        for i in range(count)
    )
    edges = "".join(f"{{ from: start, to: t{i} }}, " for i in range(count))
    return (
        "schema_version: '1.0'\nworkflow:\n  id: w\n  nodes:\n    - { id: start, type: input }\n"
        f"{nodes}  # relavium-lsp: ignore[unknown-edge-target]\n  edges: [{edges}]\n"
    )


def test_many_suppressed_items_with_findings_cost_linear_work() -> None:
    """Each finding was matched against every commented item: n items with n findings cost n².
    10x both: about 10x the work (Python lines run in the suppression module)."""
    result = analyze(commented_nodes(3))
    assert [d.rule for d in result.diagnostics] == ["unknown-output-reference"] * 3

    def cost(count: int) -> int:
        text = commented_nodes(count)
        return lines_executed(lambda: analyze(text), "analysis/checks/suppression.py")

    small, large = cost(60), cost(600)
    assert large <= small * 12, (small, large)
