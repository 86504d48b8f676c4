"""The workflow and agent-file formats as JSON Schemas (draft-07, what yaml-language-server and
SchemaStore use), generated from the declarative description the checks read
(`analysis.schema.workflow`, `analysis.schema.agent_file`: the agent file's spec is the inline
agent's, so the two schemas describe agents alike).

Contract: `workflow_json_schema()` and `agent_json_schema()` are draft-07 schemas with every
field's one-line description, enums, bounds, required keys and closed mappings
(`additionalProperties: false`), tagged unions (a node's `type`, a trigger's, agent memory) as
`if`/`then` on the tag, and an input's
`validation` keys chosen by its `type`. What a JSON Schema cannot say stays with `check`: the
graph (unknown nodes, cycles, ordering), expressions, templates, cross-field rules (bounds in
order, MCP transports, duplicate ids) and the messages that say what to do.
"""

from __future__ import annotations

import re
from typing import Any

from analysis.schema.agent_file import AGENT_FILE
from analysis.schema.output_schema import OutputSchema
from analysis.schema.subset import ALLOWED_KEYWORDS, JSON_TYPES, MAX_ENUM_MEMBERS, MAX_PROPERTIES
from analysis.schema.vocabulary import (
    Boolean,
    BySibling,
    Free,
    IfKey,
    MapOf,
    Number,
    Obj,
    Seq,
    Spec,
    Tagged,
    Text,
)
from analysis.schema.workflow import ROOT

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
SCHEMA_VERSION = "1.0"
# The engine's ExpressionTypeSchema is `z.enum(['js'])` (packages/shared/src/node.ts, 839f2bd and
# d8400fc): jmespath and jsonlogic are reserved and refused at parse. The description the checks
# read keeps `expression_type` a plain string, so that reserved-/unknown-expression-type (with
# their fix), not invalid-value, report a wrong one; here the enum is all there is to say it.
EXPRESSION_TYPES = ("js",)
_FIELD_ENUMS = {"expression_type": EXPRESSION_TYPES}


def _described(schema: dict[str, Any], spec: Spec) -> dict[str, Any]:
    return {"description": spec.doc, **schema} if spec.doc else schema


def _pattern(pattern: re.Pattern[str]) -> str:
    """A Python `match` pattern as an ECMA-262 one anchored the same way."""
    return "^" + pattern.pattern.replace("\\Z", "$")


def _text(spec: Text) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if spec.enum:
        schema["enum"] = list(spec.enum)
    if spec.nonempty:
        schema["minLength"] = 1
    if spec.pattern is not None:
        schema["pattern"] = _pattern(spec.pattern)
    elif spec.blank_is_empty:
        schema["pattern"] = "\\S"
    return schema


def _number(spec: Number) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer" if spec.integer else "number"}
    for keyword, bound in (("minimum", spec.minimum), ("maximum", spec.maximum),
                           ("exclusiveMinimum", spec.exclusive_minimum)):
        if bound is not None:
            schema[keyword] = bound
    return schema


def _object(spec: Obj) -> dict[str, Any]:
    properties = {key: to_json_schema(value) for key, value in spec.fields.items()}
    for key, members in _FIELD_ENUMS.items():
        if isinstance(spec.fields.get(key), Text):
            properties[key] = {**properties[key], "enum": list(members)}
    if spec is ROOT:
        properties["schema_version"] = {**properties["schema_version"], "const": SCHEMA_VERSION}
    schema: dict[str, Any] = {"type": "object"}
    # A key starting with `$` (an agent's `$ref`) is a keyword to some JSON Schema tools even
    # inside `properties`: it is matched by pattern instead.
    plain = {key: value for key, value in properties.items() if not key.startswith("$")}
    dollar = {f"^{re.escape(key)}$": value for key, value in properties.items()
              if key.startswith("$")}
    if plain:
        schema["properties"] = plain
    if dollar:
        schema["patternProperties"] = dollar
    if spec.required:
        schema["required"] = list(spec.required)
    if not spec.open:
        schema["additionalProperties"] = False
    # A field whose spec a sibling's value chooses (an input's `validation` by its `type`).
    chosen = [
        {"if": {"properties": {field.key: {"const": value}}, "required": [field.key]},
         "then": {"properties": {key: to_json_schema(choice)}}}
        for key, field in spec.fields.items() if isinstance(field, BySibling)
        for value, choice in field.choices.items()
    ]
    if chosen:
        schema["allOf"] = chosen
    return schema


_SUBSCHEMA = {"type": ["object", "boolean"]}
_SCALAR = {"type": ["string", "number", "boolean", "null"]}


def _output_schema() -> dict[str, Any]:
    """What holds of every `output_schema` the engine loads: its root keys are keywords of the
    strict subset with well-formed values. Below the root the engine compiles only the
    subschemas of the kinds `type` names (a string's `properties` are never read), which a
    JSON Schema cannot follow: those, the bounds on counts and depth, and `format`'s values are
    `check`'s."""
    types = {"enum": list(JSON_TYPES)}
    return {
        "type": "object",
        "propertyNames": {"enum": list(ALLOWED_KEYWORDS)},
        "properties": {
            "type": {"anyOf": [types, {"type": "array", "items": types, "minItems": 1,
                                       "uniqueItems": True}]},
            "nullable": {"type": "boolean"},
            "enum": {"type": "array", "items": _SCALAR, "minItems": 1,
                     "maxItems": MAX_ENUM_MEMBERS},
            "const": _SCALAR,
            "properties": {"type": "object", "additionalProperties": _SUBSCHEMA,
                           "maxProperties": MAX_PROPERTIES},
            "required": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "additionalProperties": _SUBSCHEMA,
            "items": _SUBSCHEMA,
            "uniqueItems": {"type": "boolean"},
            "pattern": {"type": "string"},
            "format": {"type": "string"},
        },
    }


def _tagged(spec: Tagged) -> dict[str, Any]:
    """Every form shares the tag and `common`; the tag's value picks the form's closed shape."""
    base = Obj({**spec.common, spec.tag: spec.tag_spec()},
               (*[key for key in spec.common if key == "id"], spec.tag), open=True)
    return {**_object(base), "allOf": [
        {"if": {"properties": {spec.tag: {"const": value}}, "required": [spec.tag]},
         "then": _object(form)}
        for value, form in spec.variants.items()
    ]}


def to_json_schema(spec: Spec) -> dict[str, Any]:
    schema: dict[str, Any]
    if isinstance(spec, Text):
        schema = _text(spec)
    elif isinstance(spec, Number):
        schema = _number(spec)
    elif isinstance(spec, Boolean):
        schema = {"type": "boolean"}
    elif isinstance(spec, Seq):
        schema = {"type": "array", "items": to_json_schema(spec.item)}
        if spec.min_items:
            schema["minItems"] = spec.min_items
        if spec.max_items is not None:
            schema["maxItems"] = spec.max_items
    elif isinstance(spec, OutputSchema):
        schema = _output_schema()
    elif isinstance(spec, MapOf):
        schema = {"type": "object", "additionalProperties": to_json_schema(spec.value)}
    elif isinstance(spec, Obj):
        schema = _object(spec)
    elif isinstance(spec, Tagged):
        schema = _tagged(spec)
    elif isinstance(spec, IfKey):
        schema = {"type": "object", "if": {"required": [spec.key]},
                  "then": to_json_schema(spec.present), "else": to_json_schema(spec.absent)}
    elif isinstance(spec, Free | BySibling):  # a BySibling's choices are its Obj's `allOf`
        schema = {}
    else:
        raise TypeError(f"no JSON Schema form for {type(spec).__name__}")
    return _described(schema, spec)


def workflow_json_schema() -> dict[str, Any]:
    return {
        "$schema": DRAFT_07,
        "title": "Relavium workflow",
        "description": "A Relavium workflow file (*.relavium.yaml, or YAML under .relavium/), "
                       "generated by `relavium-lsp schema`.",
        **to_json_schema(ROOT),
    }


def agent_json_schema() -> dict[str, Any]:
    return {
        "$schema": DRAFT_07,
        "title": "Relavium agent",
        **to_json_schema(AGENT_FILE),
    }
