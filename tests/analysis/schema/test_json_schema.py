"""`relavium-lsp schema`: a draft-07 JSON Schema from the checks' own schema description, tried
with a real validator (`jsonschema`) against the bundled example, a set of invalid workflows and
every workflow in the test fixtures, and compared with what `check` says about the same files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from analysis.document.source import SourceText
from analysis.document.yaml_nodes import plain_value
from analysis.document.yaml_read import read_yaml
from tests.conftest import EXAMPLES, REPO_ROOT, relavium_lsp

# The rules that report what the JSON Schema can refuse; expression_type's enum (`js`, the engine's
# ExpressionTypeSchema in packages/shared/src/node.ts) is reported by the two expression-type
# rules, so that their fix comes with it.
SCHEMA_RULES = {"unknown-key", "missing-field", "invalid-value", "unsupported-schema-keyword",
                "output-schema-too-large", "reserved-expression-type", "unknown-expression-type"}
VALID = """\
schema_version: '1.0'
workflow:
  id: demo
  trigger: { type: webhook, webhook: { path: /hook, secret_env: HOOK_SECRET } }
  inputs:
    - { name: n, type: number, validation: { min: 0, max: 10 } }
    - { name: mail, type: string, validation: { format: email, max_length: 80 } }
  agents:
    - { $ref: ./agents/writer.agent.yaml }
    - id: helper
      model: claude-sonnet-4
      provider: anthropic
      system_prompt: You help.
      memory: { type: window, window_size: 4 }
  nodes:
    - { id: start, type: input }
    - { id: ask, type: agent, agent_ref: helper, temperature: 0.5,
        output_schema: { type: [object, 'null'], required: [a], properties: { a: true } } }
    - id: route
      type: condition
      expression: 'run.outputs["ask"] ? 1 : 2'
      branches: [{ when: 1, target_node: done }]
      default: done
    - { id: done, type: output }
  edges: [{ from: start, to: ask }, { from: ask, to: route }, { from: 'route:1', to: done }]
"""
# Each breaks one thing the schema can say; `check` must refuse each too.
INVALID = {
    "unknown node key": VALID.replace("type: output }", "type: output, colour: red }"),
    "unknown node type": VALID.replace("type: output }", "type: outputs }"),
    "schema_version 2.0": VALID.replace("'1.0'", "'2.0'"),
    "no workflow id": VALID.replace("  id: demo\n", ""),
    "id not kebab-case": VALID.replace("id: demo", "id: Demo_Flow"),
    "temperature above 2": VALID.replace("temperature: 0.5", "temperature: 3"),
    "condition without branches": VALID.replace(
        "      branches: [{ when: 1, target_node: done }]\n", ""),
    "no nodes": VALID[: VALID.index("  nodes:")] + "  nodes: []\n  edges: []\n",
    "edge without to": VALID.replace("{ from: ask, to: route }", "{ from: ask }"),
    "number input with a pattern": VALID.replace("{ min: 0, max: 10 }", "{ pattern: 'a+' }"),
    "string input with min": VALID.replace("format: email,", "min: 2,"),
    "agent without provider": VALID.replace("      provider: anthropic\n", ""),
    "$ref with another key": VALID.replace("{ $ref: ./agents/writer.agent.yaml }",
                                           "{ $ref: ./agents/writer.agent.yaml, model: x }"),
    "window memory without size": VALID.replace(", window_size: 4", ""),
    "webhook without its settings": VALID.replace(
        ", webhook: { path: /hook, secret_env: HOOK_SECRET }", ""),
    "bad trigger type": VALID.replace("type: webhook,", "type: cron,"),
    "merge with expression_type": VALID.replace(
        "    - { id: done, type: output }",
        "    - { id: done, type: merge, merge_strategy: concat, expression_type: js }"),
    "blank expression": VALID.replace("""expression: 'run.outputs["ask"] ? 1 : 2'""",
                                      "expression: '   '"),
    "max_tokens zero": VALID.replace("temperature: 0.5", "max_tokens: 0"),
    "output_schema anyOf": VALID.replace("required: [a],", "anyOf: [], required: [a],"),
    "output_schema type name": VALID.replace("[object, 'null']", "[object, date]"),
    "output_schema tuple items": VALID.replace("required: [a],", "items: [true],"),
    "expression_type jmespath (reserved)": VALID.replace(
        "      branches:", "      expression_type: jmespath\n      branches:"),
    "expression_type jsonlogic (reserved)": VALID.replace(
        "      branches:", "      expression_type: jsonlogic\n      branches:"),
    "expression_type javascript": VALID.replace(
        "      branches:", "      expression_type: javascript\n      branches:"),
    "inputs not a list": VALID.replace(
        "    - { name: n, type: number, validation: { min: 0, max: 10 } }\n"
        "    - { name: mail, type: string, validation: { format: email, max_length: 80 } }",
        "    n: { type: number }"),
}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    result = relavium_lsp("schema")
    assert result.returncode == 0, result.stderr
    loaded: dict[str, Any] = json.loads(result.stdout)
    return loaded


@pytest.fixture(scope="module")
def validator(schema: dict[str, Any]) -> jsonschema.Draft7Validator:
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def data_of(text: str) -> Any:
    """The document as the engine reads it (YAML 1.2 core scalars), or None when the engine's
    YAML reader refuses it (a syntax error, an alias): that is no JSON Schema's to judge."""
    document = read_yaml(SourceText(text))
    if document.root is None or any(p.rule == "yaml-syntax" for p in document.problems):
        return None
    return plain_value(document.root)


def schema_errors_by_check(paths: list[Path]) -> dict[Path, set[str]]:
    """The schema rules `check` reports as errors, per file, from one real `check` run."""
    result = relavium_lsp("check", "--format", "json", "--no-config", *map(str, paths))
    assert result.returncode in (0, 1), result.stderr
    found: dict[Path, set[str]] = {path: set() for path in paths}
    for record in json.loads(result.stdout):
        if record["code"] in SCHEMA_RULES and record["severity"] == "error":
            found[Path(record["path"])].add(record["code"])
    return found


@pytest.fixture(scope="module")
def invalid_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("invalid")
    files = {}
    for index, name in enumerate(sorted(INVALID)):
        files[name] = folder / f"{index:02}.relavium.yaml"
        files[name].write_text(INVALID[name], encoding="utf-8")
    return files


@pytest.fixture(scope="module")
def check_verdicts(invalid_files: dict[str, Path]) -> dict[Path, set[str]]:
    return schema_errors_by_check(list(invalid_files.values()))


def test_the_schema_is_draft_07_with_descriptions_and_enums(schema: dict[str, Any]) -> None:
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    workflow = schema["properties"]["workflow"]
    assert workflow["required"] == ["id", "nodes", "edges"]
    assert workflow["additionalProperties"] is False
    assert workflow["properties"]["id"]["description"]
    node = workflow["properties"]["nodes"]["items"]
    assert node["properties"]["type"]["enum"] == [
        "input", "agent", "human_gate", "condition", "transform", "parallel", "merge", "output"]
    condition = next(rule["then"] for rule in node["allOf"]
                     if rule["if"]["properties"]["type"]["const"] == "condition")
    assert condition["required"] == ["id", "type", "expression", "branches"]
    assert "description" in condition["properties"]["expression"]


def test_expression_type_is_the_engines_enum(
    schema: dict[str, Any], validator: jsonschema.Draft7Validator
) -> None:
    node = schema["properties"]["workflow"]["properties"]["nodes"]["items"]
    forms = {rule["if"]["properties"]["type"]["const"]: rule["then"] for rule in node["allOf"]}
    for kind in ("condition", "transform"):
        assert forms[kind]["properties"]["expression_type"]["enum"] == ["js"]
    assert "expression_type" not in forms["merge"]["properties"]
    with_js = VALID.replace("      branches:", "      expression_type: js\n      branches:")
    assert list(validator.iter_errors(data_of(with_js))) == []


def test_the_bundled_example_validates(validator: jsonschema.Draft7Validator) -> None:
    for example in sorted(EXAMPLES.glob("*.relavium.yaml")):
        errors = list(validator.iter_errors(data_of(example.read_text(encoding="utf-8"))))
        assert errors == [], (example.name, [error.message for error in errors])


def test_a_valid_workflow_validates_and_checks_clean(
    validator: jsonschema.Draft7Validator, tmp_path: Path
) -> None:
    assert list(validator.iter_errors(data_of(VALID))) == []
    (tmp_path / "valid.relavium.yaml").write_text(VALID, encoding="utf-8")
    # the agent file its `$ref` names: check reads it (analysis/project/workspace.py)
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "writer.agent.yaml").write_text(
        "id: writer\nmodel: claude-sonnet-4\nprovider: anthropic\nsystem_prompt: You write.\n",
        encoding="utf-8")
    result = relavium_lsp("check", "--format", "json", str(tmp_path / "valid.relavium.yaml"))
    assert (result.returncode, json.loads(result.stdout)) == (0, [])


@pytest.mark.parametrize("name", sorted(INVALID))
def test_schema_and_check_both_refuse_an_invalid_workflow(
    validator: jsonschema.Draft7Validator, invalid_files: dict[str, Path],
    check_verdicts: dict[Path, set[str]], name: str
) -> None:
    text = INVALID[name]
    assert text != VALID, "the case must change something"
    assert list(validator.iter_errors(data_of(text))), f"the schema accepts: {name}"
    assert check_verdicts[invalid_files[name]], f"check accepts: {name}"


def fixture_workflows() -> list[Path]:
    return sorted((REPO_ROOT / "tests").rglob("*.relavium.yaml"))


def test_the_schema_never_refuses_what_check_accepts(
    validator: jsonschema.Draft7Validator,
) -> None:
    """Over every workflow in the test fixtures: a file the schema refuses is one `check` finds
    a schema error in. (The converse does not hold: cross-field rules are check's alone.)"""
    refused_by_schema = []
    for path in fixture_workflows():
        data = data_of(path.read_text(encoding="utf-8"))
        if data is not None and list(validator.iter_errors(data)):
            refused_by_schema.append(path)
    verdicts = schema_errors_by_check(refused_by_schema)
    disagreements = [path.relative_to(REPO_ROOT).as_posix()
                     for path in refused_by_schema if not verdicts[path]]
    assert disagreements == []
    assert len(refused_by_schema) >= 20  # the corpus does exercise the schema's refusals
