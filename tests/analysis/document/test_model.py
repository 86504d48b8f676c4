"""The public model: source positions, typed view, expression/template offsets, templates."""

import pytest

from analysis.checks.analyze import analyze
from analysis.diagnostics import Position
from analysis.document.model import Workflow
from analysis.document.source import SourceText
from analysis.document.templates import find_references
from analysis.document.yaml_profile import resolve_plain


def test_source_positions_handle_crlf_cr_and_astral_characters() -> None:
    source = SourceText("a😀b\r\nc\rd\ne")
    assert source.line_starts == [0, 5, 7, 9]
    assert source.position(2) == Position(0, 2)
    assert source.offset(Position(1, 0)) == 5
    assert source.offset(Position(0, 99)) == 3  # clamps to the end of the line
    assert source.utf16_character(Position(0, 2)) == 3
    assert source.line_text(0) == "a😀b"


@pytest.mark.parametrize(("text", "value"), [
    ("yes", "yes"), ("on", "on"), ("2024-01-01", "2024-01-01"), ("true", True),
    ("FALSE", False), ("~", None), ("", None), ("null", None), ("0x1F", 31), ("0o17", 15),
    ("-12", -12), ("1.5e3", 1500.0), (".inf", float("inf")), ("1_000", "1_000"),
    ("0x", "0x"), ("Null", None), ("nULL", "nULL"),
])
def test_plain_scalars_follow_the_yaml_1_2_core_schema(text: str, value: object) -> None:
    assert resolve_plain(text) == value


def workflow(text: str) -> Workflow:
    result = analyze(text)
    assert result.workflow is not None
    return result.workflow


TEXT = """\
schema_version: '1.0'
workflow:
  id: demo
  nodes:
    - { id: start, type: input }
    - id: route
      type: condition
      expression: "run.outputs[\\"start\\"].é > 1 ? \\u0022a\\u0022 : 'b'"
      branches:
        - { when: a, target_node: done }
        - { when: 2.0, target_node: done }
    - { id: done, type: output }
  edges:
    - { from: start, to: route }
    - { from: 'route:a', to: done }
"""


def test_typed_view_of_nodes_edges_and_branches() -> None:
    model = workflow(TEXT)
    assert [node.id for node in model.nodes] == ["start", "route", "done"]
    route = model.node("route")
    assert route is not None and route.type == "condition"
    assert [branch.handle for branch in route.branches] == ["a", "2"]
    edge = model.edges[1]
    assert (edge.source, edge.handle, edge.to and edge.to.id) == ("route", "a", "done")
    source = model.source
    assert source.text[slice(*edge.source_span())] == "route"
    assert source.text[slice(*edge.handle_span())] == "a"


def test_expression_offsets_map_escapes_back_to_the_source() -> None:
    model = workflow(TEXT)
    field = next(model.expression_fields())
    assert field.name == "expression" and field.kind == "condition"
    assert field.value == "run.outputs[\"start\"].é > 1 ? \"a\" : 'b'"
    text = model.source.text
    quote = field.value.index('"a"')
    assert text[slice(*field.source_span(quote, quote + 1))] == "\\u0022"
    start = field.value.index("start")
    assert text[slice(*field.source_span(start, start + 5))] == "start"
    offset, _ = field.source_span(start, start + 1)
    assert field.decoded_index_of(offset) == start
    assert field.exact


def test_templates_find_references_filters_and_quoted_braces() -> None:
    refs = find_references('{{ inputs.a | default("}}") }} {{ run.outputs["x-y"].z }} '
                           "{{ ctx.k }} {{ run.id }} {{ nope }} {{ unclosed")
    assert [(r.kind, r.name) for r in refs] == [
        ("inputs", "a"), ("run.outputs", "x-y"), ("ctx", "k"), ("run.id", None), (None, None)]
    assert [f.name for f in refs[0].filters] == ["default"]
    assert refs[1].edge and not refs[0].edge


def test_last_good_keeps_the_previous_model_while_the_yaml_is_broken() -> None:
    good = analyze(TEXT)
    broken = analyze(TEXT.replace("nodes:", "nodes: [", 1))
    assert broken.workflow is None and broken.graph is None
    assert [d.rule for d in broken.diagnostics] == ["yaml-syntax"]
    assert broken.last_good(good) is good
    assert good.last_good(None) is good
