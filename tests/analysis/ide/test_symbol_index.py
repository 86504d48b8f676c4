"""The symbol index: every place a node id, input, context key or agent id is written."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.checks.analyze import analyze
from analysis.document.model import Workflow
from analysis.ide.navigation import Role, SymbolKind, expression_at, symbol_index, template_at
from tests.conftest import EXAMPLES

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")


def workflow_of(text: str) -> Workflow:
    workflow = analyze(text).workflow
    assert workflow is not None
    return workflow


def places(text: str, kind: SymbolKind, name: str) -> list[tuple[str, str, str | None]]:
    """(role, the text at the span, reader) for each occurrence."""
    index = symbol_index(workflow_of(text))
    return [(o.role.value, text[o.start:o.end], o.reader) for o in index.references(kind, name)]


def test_every_kind_of_node_reference() -> None:
    text = """schema_version: '1.0'
workflow:
  id: w
  nodes:
    - { id: a, type: input }
    - { id: "p", type: parallel, parallel_of: ['a', b] }
    - id: c
      type: condition
      expression: "run.outputs.a ? run?.outputs?.['b'] : run.outputs[`p`]"
      branches: [{ when: yes, target_node: b }]
      default: "a"
    - { id: b, type: agent, agent_ref: x, prompt_template: 'Hi {{ run.outputs["c"].v }}' }
  edges:
    - { from: "c:yes", to: b }
"""
    assert places(text, SymbolKind.NODE, "a") == [
        ("definition", "a", None), ("parallel-of", "a", None), ("expression", "a", "c"),
        ("default", "a", None),
    ]
    assert places(text, SymbolKind.NODE, "b") == [
        ("parallel-of", "b", None), ("expression", "b", "c"), ("target-node", "b", None),
        ("definition", "b", None), ("edge-to", "b", None),
    ]
    assert places(text, SymbolKind.NODE, "p") == [("definition", "p", None),
                                                  ("expression", "p", "c")]
    assert places(text, SymbolKind.NODE, "c") == [
        ("definition", "c", None), ("template", "c", "b"), ("edge-from", "c", None),
    ]
    assert places(text, SymbolKind.AGENT, "x") == [("agent-ref", "x", None)]


def test_inputs_context_and_agents() -> None:
    assert places(EXAMPLE, SymbolKind.INPUT, "crm_token") == [
        ("definition", "crm_token", None), ("template", "crm_token", None),
    ]
    assert places(EXAMPLE, SymbolKind.CONTEXT, "team") == [
        ("definition", "team", None), ("template", "team", None), ("expression", "team", "combine"),
    ]
    assert places(EXAMPLE, SymbolKind.AGENT, "writer") == [
        ("definition", "writer", None), ("agent-ref", "writer", None),
    ]


def test_handles_are_declared_by_branches() -> None:
    assert places(EXAMPLE, SymbolKind.HANDLE, "route:urgent") == [
        ("definition", "urgent", None), ("edge-from", "urgent", None),
    ]
    text = EXAMPLE.replace("when: normal", "when: 7").replace("'route:normal'", "'route:7'")
    assert places(text, SymbolKind.HANDLE, "route:7") == [
        ("definition", "7", None), ("edge-from", "7", None),
    ]


def test_reads_inside_strings_and_comments_are_not_references() -> None:
    text = EXAMPLE.replace(
        "Object.assign({}, ...branches, { team: ctx.team })",
        "Object.assign({}, ...branches) // run.outputs.classify and ctx.team",
    )
    assert ("expression", "classify", "combine") not in places(text, SymbolKind.NODE, "classify")
    assert all(role != "expression" for role, _, _ in places(text, SymbolKind.CONTEXT, "team"))


def test_at_prefers_the_name_under_the_cursor_and_accepts_its_end() -> None:
    index = symbol_index(workflow_of(EXAMPLE))
    start = EXAMPLE.index("{ from: 'route:urgent'") + len("{ from: '")
    for offset in (start, start + 3, start + len("route")):
        found = index.at(offset)
        assert found is not None and (found.name, found.role) == ("route", Role.EDGE_FROM)
    handle = index.at(start + len("route:"))  # the handle is not a node id
    assert handle is not None and (handle.kind, handle.name) == (SymbolKind.HANDLE, "route:urgent")
    assert index.at(EXAMPLE.index("max_parallel")) is None


def test_multi_line_block_scalars_map_exactly() -> None:
    text = EXAMPLE.replace(
        "Object.assign({}, ...branches, { team: ctx.team })",
        "Object.assign(\n          {},\n          ...branches,\n"
        "          { s: run.outputs[\"sentiment\"] })",
    )
    (read,) = [o for o in symbol_index(workflow_of(text)).references(SymbolKind.NODE, "sentiment")
               if o.role is Role.EXPRESSION]
    assert read.exact and text[read.start:read.end] == "sentiment"
    assert read.reader == "combine"


def test_expression_and_template_at() -> None:
    workflow = workflow_of(EXAMPLE)
    offset = EXAMPLE.index("?? 7)")
    found = expression_at(workflow, offset)
    assert found is not None
    field, index = found
    assert field.node.id == "route" and field.value[index:index + 4] == "?? 7"
    offset = EXAMPLE.index("ctx.team }}")
    template = template_at(workflow, offset)
    assert template is not None and template[0].value[template[1]:].startswith("ctx.team")
    assert expression_at(workflow, EXAMPLE.index("ctx.team }}")) is None


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("- {}[]:'\"\n ab1#|>\\é😀"), max_size=200), st.data())
def test_never_raises_on_generated_yaml(noise: str, data: st.DataObject) -> None:
    text = EXAMPLE[: data.draw(st.integers(0, len(EXAMPLE)))] + noise
    workflow = analyze(text).workflow
    if workflow is None:
        return
    index = symbol_index(workflow)
    for occurrence in index.occurrences:
        assert 0 <= occurrence.start <= occurrence.end <= len(text)
    index.at(data.draw(st.integers(0, len(text))))
