"""The engine's strict JSON-Schema subset as data: its bounds, its keywords and what to write
instead of the ones it refuses, the shape of each keyword's value, and the YAML-scalar readings
they are judged with (HodeTech/Relavium `packages/shared/src/json-schema-compiler.ts` @ 1e6de3e
`STRICT_ALLOWED_KEYS`, `JSON_SCHEMA_VOCABULARY`, `STRICT_FORMATS`, `validateKeywordShapes`;
`packages/core/src/limits.ts` `AUTHORED_SCHEMA_BOUNDS`). `analysis.schema.output_schema` compiles
with them; the JSON Schema export states them."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

from analysis.document.yaml_nodes import YMapping, YNode, YScalar, YSequence
from analysis.naming import Suggestions

# AUTHORED_SCHEMA_BOUNDS (packages/core/src/limits.ts).
MAX_DEPTH = 12
MAX_NODES = 1000
MAX_ENUM_MEMBERS = 500
MAX_PROPERTIES = 200
MAX_STRING_BYTES = 4 * 1024
MAX_PROPERTY_NAME_BYTES = 256

# STRICT_ALLOWED_KEYS: every other key is refused.
ANNOTATIONS = ("$schema", "$id", "$comment", "title", "description", "default", "examples",
               "deprecated", "readOnly", "writeOnly")
ALLOWED_KEYWORDS = (*ANNOTATIONS, "type", "nullable", "enum", "const", "properties", "required",
                    "additionalProperties", "minProperties", "maxProperties", "items",
                    "minItems", "maxItems", "uniqueItems", "minLength", "maxLength", "pattern",
                    "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                    "multipleOf")
JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
FORMATS = ("email", "uuid", "uri", "url", "date-time", "date", "time", "duration", "ipv4",
           "ipv6")

_INLINE = "write the subschema inline where it is used (the subset resolves no references)"
_TRANSFORM = "check it in a transform node after this one"
# JSON_SCHEMA_VOCABULARY minus the allowed keys: JSON Schema keywords the subset refuses, each
# with what to write instead.
REFUSED_KEYWORDS: dict[str, str] = {
    "$ref": _INLINE, "$dynamicRef": _INLINE, "$defs": _INLINE, "definitions": _INLINE,
    "$anchor": "remove it (the subset resolves no references)",
    "$dynamicAnchor": "remove it (the subset resolves no references)",
    "$vocabulary": "remove it",
    "oneOf": "use an enum for a choice among values, or a type list such as "
             "[string, 'null'] for a choice among kinds",
    "anyOf": "use an enum for a choice among values, or a type list such as "
             "[string, 'null'] for a choice among kinds",
    "allOf": "merge the schemas into one",
    "not": "state what is allowed instead (an enum, bounds, a pattern)",
    "if": f"write one schema that admits every case, and {_TRANSFORM}",
    "then": f"write one schema that admits every case, and {_TRANSFORM}",
    "else": f"write one schema that admits every case, and {_TRANSFORM}",
    "patternProperties": "type the free keys' values with additionalProperties: <schema>",
    "propertyNames": _TRANSFORM,
    "dependencies": f"list the keys in required, or {_TRANSFORM}",
    "dependentSchemas": f"list the keys in required, or {_TRANSFORM}",
    "dependentRequired": f"list the keys in required, or {_TRANSFORM}",
    "unevaluatedProperties": "use additionalProperties",
    "unevaluatedItems": "use items",
    "prefixItems": "use one items schema for every item",
    "contains": _TRANSFORM, "minContains": _TRANSFORM, "maxContains": _TRANSFORM,
    "contentEncoding": "remove it", "contentMediaType": "remove it",
    "contentSchema": "remove it",
}

# The keywords each kind owns: a node with no `type` applies each group to values of its kind.
STRING_KEYWORDS = ("minLength", "maxLength", "pattern", "format")
NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
ARRAY_KEYWORDS = ("items", "minItems", "maxItems", "uniqueItems")
OBJECT_KEYWORDS = ("properties", "required", "additionalProperties", "minProperties",
                   "maxProperties")


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def finite_number(node: YNode) -> float | None:
    """A finite JSON number's value, else None (a YAML boolean is no number)."""
    value = node.value if isinstance(node, YScalar) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def is_scalar(node: YNode) -> bool:
    return isinstance(node, YScalar) and (
        node.value is None or isinstance(node.value, str | bool) or finite_number(node) is not None)


def string_items(node: YNode) -> list[YScalar] | None:
    """The items of a list of strings, or None when it is not one."""
    if not isinstance(node, YSequence):
        return None
    items = [item for item in node.items if isinstance(item, YScalar)
             and isinstance(item.value, str)]
    return items if len(items) == len(node.items) else None


def unique_strings(node: YNode, nonempty: bool) -> bool:
    items = string_items(node)
    return items is not None and (bool(items) or not nonempty) and \
        len({item.value for item in items}) == len(items)


# validateKeywordShapes: (keyword, test, what it must be), checked on every compiled node.
SHAPES: tuple[tuple[str, Callable[[YNode], bool], str], ...] = (
    ("properties", lambda node: isinstance(node, YMapping), "a mapping of property schemas"),
    ("items", lambda node: isinstance(node, YMapping) or is_bool(node),
     "a schema (a mapping) or true/false"),
    ("additionalProperties", lambda node: isinstance(node, YMapping) or is_bool(node),
     "a schema (a mapping) or true/false"),
    ("pattern", lambda node: is_str(node), "a string"),
    ("format", lambda node: is_str(node), "a string"),
    ("uniqueItems", lambda node: is_bool(node), "true or false"),
    ("nullable", lambda node: is_bool(node), "true or false"),
    ("enum", lambda node: isinstance(node, YSequence) and bool(node.items), "a non-empty list"),
    ("required", lambda node: unique_strings(node, nonempty=False),
     "a list of distinct strings"),
    ("type", lambda node: is_str(node) or unique_strings(node, nonempty=True),
     "a type name or a non-empty list of distinct type names"),
)


def is_bool(node: YNode) -> bool:
    return isinstance(node, YScalar) and isinstance(node.value, bool)


def is_str(node: YNode) -> bool:
    return isinstance(node, YScalar) and isinstance(node.value, str)


@cache
def keyword_suggestions() -> Suggestions:
    return Suggestions(ALLOWED_KEYWORDS)


def scalar_value(node: YNode) -> Any:
    """A scalar's value (None for any other node)."""
    return node.value if isinstance(node, YScalar) else None
