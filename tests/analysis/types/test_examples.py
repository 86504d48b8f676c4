"""The one generator of example values (`analysis.types.examples`): what a dry run synthesizes
for an agent passes the engine's validation of its `output_schema` (ADR-0092 §4), checked with
the types' own `admits`; and a pinned sample that does not gets a note, through the real
command line."""

import json
from pathlib import Path

import pytest

from analysis.document.source import SourceText
from analysis.document.yaml_read import read_yaml
from analysis.schema.output_schema import compile_output_schema
from analysis.types.examples import example_of
from analysis.types.membership import admits
from tests.conftest import FIXTURES, relavium_lsp

SCHEMAS = [
    "{ type: string }",
    "{ type: string, minLength: 3 }",
    "{ type: string, format: email }",
    "{ type: [string, 'null'] }",
    "{ type: integer, minimum: 3, maximum: 9 }",
    "{ type: number, exclusiveMinimum: 0, multipleOf: 0.5 }",
    "{ type: integer, maximum: -4 }",
    "{ type: number, exclusiveMaximum: -1 }",
    "{ enum: [low, high] }",
    "{ const: 3 }",
    "{ type: array, items: { type: integer, minimum: 1 }, minItems: 2 }",
    "{ type: object, additionalProperties: false, required: [a], properties: "
    "{ a: { type: boolean }, b: { type: string, nullable: true } } }",
    "{ type: object, required: [extra], properties: {} }",
    "{ minLength: 2 }",
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_the_example_is_a_value_of_the_schema(schema: str) -> None:
    root = read_yaml(SourceText(f"s: {schema}\n")).root
    assert root is not None
    entry = root.get("s")  # type: ignore[union-attr]
    assert entry is not None
    value_type = compile_output_schema(entry.value).value_type
    assert value_type is not None, schema
    assert admits(value_type, example_of(value_type)), (schema, example_of(value_type))


def _loaded_output_schemas() -> list[str]:
    """Every output_schema of the parity corpus the engine loads (its output-schema family)."""
    found = []
    for path in sorted((FIXTURES / "parity" / "output-schema").glob("*.relavium.yaml")):
        text = path.read_text(encoding="utf-8")
        if "# engine: loads" in text and "# newest: refuses" not in text:
            found.append(str(path))
    return found


@pytest.mark.parametrize("path", _loaded_output_schemas())
def test_every_loaded_schema_of_the_corpus_gets_an_example_it_admits(path: str) -> None:
    from analysis.document.model_build import build_workflow
    workflow = build_workflow(read_yaml(SourceText(Path(path).read_text(encoding="utf-8"))))
    for node in workflow.nodes:
        entry = workflow.output_schema_of(node)
        value_type = compile_output_schema(entry.value).value_type if entry else None
        if value_type is not None:
            assert admits(value_type, example_of(value_type)), node.id


WORKFLOW = """schema_version: '1.0'
workflow:
  id: pinned
  agents:
    - { id: triager, model: claude-sonnet-4, provider: anthropic, system_prompt: Classify. }
  nodes:
    - id: classify
      type: agent
      agent_ref: triager
      prompt_template: Classify.
      output_schema:
        type: object
        additionalProperties: false
        required: [severity]
        properties:
          severity: { type: integer, minimum: 1 }
          label: { type: string, minLength: 2, enum: [low, high] }
    - { id: use, type: transform, transform: 'run.outputs.classify.severity' }
  edges:
    - { from: classify, to: use }
"""


def run(tmp_path: Path, samples: dict[str, object] | None) -> dict[str, object]:
    (tmp_path / "flow.relavium.yaml").write_text(WORKFLOW, encoding="utf-8")
    if samples is not None:
        (tmp_path / "flow.samples.json").write_text(json.dumps(samples), encoding="utf-8")
    result = relavium_lsp("run", "--format", "json", "flow.relavium.yaml", cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    found: dict[str, object] = json.loads(result.stdout)
    return found


def test_a_synthesized_agent_output_follows_its_schema(tmp_path: Path) -> None:
    outcome = run(tmp_path, None)
    nodes = {node["id"]: node for node in outcome["nodes"]}  # type: ignore[attr-defined]
    assert nodes["classify"]["status"] == "synthesized"
    # integer, minimum 1: the old skeleton wrote 0, which the engine's validation refuses
    assert nodes["classify"]["value"] == {"severity": 1, "label": "low"}
    assert nodes["use"]["value"] == 1


@pytest.mark.parametrize("pinned", [{"severity": 0}, {"severity": 2, "other": 1}, "text"])
def test_a_pinned_output_its_schema_refuses_gets_a_note_naming_no_value(
        tmp_path: Path, pinned: object) -> None:
    outcome = run(tmp_path, {"outputs": {"classify": pinned}})
    notes = [note for note in outcome["notes"]  # type: ignore[attr-defined]
             if "is not a value of the output_schema" in note]
    assert notes == ["sample output `classify` is not a value of the output_schema `classify` "
                     "is held to: the engine would fail the node (validation, ADR-0092 §4) on "
                     "that answer; this dry run uses it as given"]


def test_a_pinned_output_its_schema_admits_gets_no_note(tmp_path: Path) -> None:
    outcome = run(tmp_path, {"outputs": {"classify": {"severity": 3, "label": "high"}}})
    assert not any("output_schema" in note for note in outcome["notes"])  # type: ignore[attr-defined]
