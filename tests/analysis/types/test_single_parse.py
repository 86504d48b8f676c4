"""A first analysis parses each expression once: the types' compiler reads the tree the
expression's facts parsed (`analysis.document.expressions.facts.PARSE_OBSERVERS`), and the type
it compiles from that tree is the one a parse of its own gives."""

from __future__ import annotations

import uuid

import pytest

import analysis.document.expressions.parsing as parsing
import analysis.types.infer as infer
from analysis.checks.analyze import analyze
from analysis.document.expressions import analyze_expression
from analysis.document.expressions.parsing import ParsedExpression
from analysis.types.program import _Compiler, compile_expression

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: once
  nodes:
    - {{ id: shape, type: transform, transform: '({{ tag: "{marker}", level: "low" }})' }}
    - id: route
      type: condition
      expression: 'run.outputs.shape.level /* {marker} */'
      branches:
        - {{ when: high, target_node: done }}
      default: done
    - {{ id: done, type: transform, transform: 'run.outputs.shape.tag' }}
  edges:
    - {{ from: shape, to: route }}
"""


def test_a_first_analysis_parses_each_expression_once(monkeypatch: pytest.MonkeyPatch) -> None:
    marker = uuid.uuid4().hex  # texts no earlier test cached
    parsed: list[bytes] = []
    parse = parsing._parse

    def counted(data: bytes) -> object:
        parsed.append(data)
        return parse(data)

    monkeypatch.setattr(parsing, "_parse", counted)
    result = analyze(WORKFLOW.format(marker=marker))
    # the condition's type was inferred (a `when` it can never produce)
    assert [d.rule for d in result.diagnostics] == ["impossible-branch-value"]
    marked = [data for data in parsed if marker.encode() in data]
    assert len(marked) == 2, "each of the two marked expressions parsed once"


@pytest.mark.parametrize("template", [
    '({ a: [1, 2].map((x) => x * 2), b: String(inputs.q ?? "{marker}").slice(0, 2) })',
    'run.outputs["n"]?.items?.length > 2 ? "{marker}" : "few"',
    'String.prototype.trim = () => "{marker}"',
    '(inputs.q <!-- {marker}\n)',
])
def test_the_compiled_form_from_the_facts_tree_is_a_fresh_parse_s(template: str) -> None:
    source = template.replace("{marker}", uuid.uuid4().hex)
    analyze_expression(source)  # compiles from its tree
    assert infer._program(source) == compile_expression(ParsedExpression(source))


@pytest.mark.parametrize("source", [
    '({ "k": [1, 0x1F, 2_000, 9007199254740993], t: `a${inputs.x}b`, n: -0.5 })',
    'inputs.é ?? "ü" + `ş`',  # not ASCII: code points are not bytes
    'inputs.a <!-- a comment QuickJS reads\n+ 1',  # blanked in the parsed bytes
    "run.outputs['\\u0061'].b?.c",
])
def test_the_compiler_reads_each_node_s_text_as_the_parse_maps_it(source: str) -> None:
    parsed = ParsedExpression(source)
    compiler = _Compiler(parsed)
    stack = [parsed.root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if parsed.in_expression(node):
            assert compiler.text(node) == parsed.text(node), node.type
