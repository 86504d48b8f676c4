"""`relavium-lsp schema --kind agent`: the agent-file JSON Schema, generated from the same spec the
checks use, tried with a real validator on the agent oracle's corpus (tests/fixtures/agents):
every file the engine's `parseAgent` loads is valid, and the refusals a JSON Schema can say are
refused."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from tests.analysis.checks.test_agent_parity import FIXTURES, engine_verdict
from tests.analysis.schema.test_json_schema import data_of
from tests.conftest import FIXTURES as FIXTURES_DIR
from tests.conftest import relavium_lsp

CORPUS = FIXTURES_DIR / "agents"
# parseAgent refuses each; each breaks a rule a JSON Schema states (type, enum, bound, pattern,
# required key, closed mapping, memory's tagged forms).
SAYABLE = ("fields/temperature-three", "fields/id-underscore", "fields/provider-mistral",
           "fields/max-tokens-zero", "fields/retry-retry-on-denied", "fields/memory-bogus",
           "fields/memory-window-missing-size", "fields/memory-none-with-size",
           "document/unknown-schema-version", "document/missing-system-prompt",
           "mcp/bad-transport", "fields/fallback-chain-no-attempts")


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    result = relavium_lsp("schema", "--kind", "agent")
    assert result.returncode == 0, result.stderr
    schema: dict[str, Any] = json.loads(result.stdout)
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema["title"] == "Relavium agent"
    assert schema["required"] == ["id", "model", "provider", "system_prompt"]
    assert schema["additionalProperties"] is False
    assert "schema_version" not in schema["properties"]
    return jsonschema.Draft7Validator(schema)


def test_every_agent_the_engine_loads_is_valid(validator: jsonschema.Draft7Validator) -> None:
    loaded = [path for path in FIXTURES if engine_verdict(path) == "loads"]
    assert len(loaded) >= 100
    invalid = {path.name: [error.message for error in validator.iter_errors(data)]
               for path in loaded
               if (data := data_of(path.read_text(encoding="utf-8-sig"))) is not None
               and not validator.is_valid(data)}
    assert invalid == {}


@pytest.mark.parametrize("name", SAYABLE)
def test_what_a_json_schema_can_say_is_refused(validator: jsonschema.Draft7Validator,
                                               name: str) -> None:
    path = CORPUS / f"{name}.agent.yaml"
    assert engine_verdict(path).startswith("refuses")
    assert not validator.is_valid(data_of(path.read_text(encoding="utf-8")))


def test_the_workflow_schema_is_still_the_default() -> None:
    result = relavium_lsp("schema")
    assert json.loads(result.stdout)["title"] == "Relavium workflow"
