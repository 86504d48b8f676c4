"""The strict JSON-Schema subset of an authored `output_schema`, as the engine compiles it.

Engine facts pinned here, HodeTech/Relavium:
- `packages/shared/src/json-schema-compiler.ts` @ 1e6de3eda2e9 (`compileJsonSchemaToZod`, strict
  mode) and its test file @ 7c85cc8c052f (the cases marked "engine test");
- `packages/core/src/limits.ts` `AUTHORED_SCHEMA_BOUNDS` (depth 12, 1,000 nodes, 500 enum
  members, 200 properties, 4 KiB strings, 256-byte names), compiled at parse
  (`packages/core/src/output-schema.ts`, ADR-0092 §3);
- `docs/reference/shared-core/json-schema-subset.md` (the keyword matrix).
"""

from typing import Any

import pytest

from analysis.document.source import SourceText
from analysis.document.yaml_read import read_yaml
from analysis.schema.output_schema import (
    SCHEMA_TOO_LARGE,
    UNSUPPORTED_KEYWORD,
    CompiledSchema,
    compile_output_schema,
)
from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    BooleanType,
    Literals,
    NoValue,
    NullType,
    NumberType,
    ObjectType,
    StringType,
    Union,
)


def compiled(text: str) -> CompiledSchema:
    root = read_yaml(SourceText(text)).root
    assert root is not None
    return compile_output_schema(root)


def rules(text: str) -> list[str]:
    return [problem.rule for problem in compiled(text).problems]


def at(text: str) -> list[str]:
    """The text each refusal is reported at."""
    return [text[problem.node.start:problem.node.end] for problem in compiled(text).problems]


@pytest.mark.parametrize("schema", [
    "{ type: string, writeOnlyOnTuesdays: true }",  # engine test: an unknown keyword
    "{ type: string, minLength: '5' }",  # engine test: malformed values
    "{ type: string, minLength: -1 }",
    "{ type: number, multipleOf: 0 }",
    "{ type: array, uniqueItems: 'yes' }",
    "{ type: string, pattern: '([' }",
    "{ type: string, format: hostname }",
    "{ type: object, additionalProperties: 'yes' }",
    *(f"{{ type: object, {key}: {{}} }}"
      for key in ("$ref", "oneOf", "anyOf", "allOf", "not", "patternProperties")),
    "{ type: date }",  # compileTyped: not a JSON type
    "{ type: [] }",  # validateKeywordShapes: a non-empty list
    "{ type: [string, string] }",  # … of distinct names
    "{ enum: [] }",
    "{ enum: [[1]] }",  # enumSchema: scalars only
    "{ const: { a: 1 } }",  # literalSchema
    "{ const: .inf }",  # a finite number
    "{ nullable: 'yes' }",
    "{ required: [a, a] }",
    "{ type: object, properties: [] }",
    "{ type: object, properties: { a: 5 } }",  # a schema node is a mapping or a boolean
    "{ type: object, properties: { a: } }",
    "{ type: object, properties: { __proto__: {} } }",  # rejectProtoKey
    "{ type: object, required: [a], additionalProperties: false }",  # addUntypedRequired
    "{ type: array, items: [{ type: string }] }",  # tuple items
    "{ type: string, items: [{ type: string }] }",  # shapes are checked whatever the type
    "{ minLength: 1.5 }",  # a typeless node's string keywords are read
    # stringSchema wraps a length-bounded string in superRefine (a ZodEffects) and then calls
    # the format's method on it, which it lacks: the compile throws, a refusal. Found by running
    # the engine's compiler (zod 3, as pnpm-workspace.yaml's catalog pins) on random schemas.
    "{ type: string, format: email, maxLength: 100 }",
    "{ format: date-time, minLength: 0 }",
])
def test_the_engine_refuses(schema: str) -> None:
    result = compiled(schema)
    assert result.problems
    assert result.value_type is None


@pytest.mark.parametrize("schema", [
    "{ type: string, title: A, description: B, default: c }",  # engine test: annotations
    "{ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: x, $comment: y, "
    "examples: [1], deprecated: true, readOnly: false, writeOnly: false }",
    "{ type: string, minLength: 5.0 }",  # a JavaScript number: 5.0 is the integer 5
    "{ type: string, pattern: 'a\\-b' }",  # an identity escape compiles without the u flag
    # Only the subschemas of the kinds `type` names are compiled (compileTyped): a string's
    # `properties`, an object's `items`, a number's `format` and `pattern` are never read.
    "{ type: string, properties: { a: { $ref: '#/x' } } }",
    "{ type: object, items: { oneOf: [] } }",
    "{ type: number, format: hostname, pattern: '([', minLength: x }",
    "{ type: string, minimum: x }",
    "{ type: boolean, additionalProperties: { not: {} } }",
    "{ type: object, required: [a] }",  # a required name may be undeclared (no `false`)
    "{ type: object, required: [a], additionalProperties: { type: string } }",
    "{ properties: { a: true, b: false } }",  # boolean schemas
    "{ type: string, pattern: '^.{1,100}$', maxLength: 100 }",  # a pattern beside lengths pipes
])
def test_the_engine_loads(schema: str) -> None:
    assert compiled(schema).problems == ()


def test_each_refusal_is_at_the_key_or_value_at_fault_with_its_rule() -> None:
    text = ("{ type: object, oneOf: [], properties: { a: { type: string, minLength: '5' }, "
            "b: { minLenght: 1 }, c: { format: emial } } }")
    assert list(zip(rules(text), at(text), strict=True)) == [
        (UNSUPPORTED_KEYWORD, "oneOf"), ("invalid-value", "'5'"), ("unknown-key", "minLenght"),
        ("invalid-value", "emial"),
    ]


def test_an_unknown_keyword_gets_the_closest_one_and_a_fix() -> None:
    problem = compiled("{ type: string, minLenght: 1 }").problems[0]
    assert "did you mean 'minLength'?" in problem.message
    assert [edit[2] for fix in problem.fixes for edit in fix.edits] == ["minLength"]


def test_a_refused_keyword_says_what_to_write_instead() -> None:
    assert "enum" in compiled("{ anyOf: [] }").problems[0].message
    assert "additionalProperties" in compiled("{ patternProperties: {} }").problems[0].message


def nested(levels: int) -> str:
    schema = "{ type: string }"
    for _ in range(levels):
        schema = f"{{ type: array, items: {schema} }}"
    return schema


def test_depth_twelve_loads_and_thirteen_does_not() -> None:
    # compileNode refuses `depth > maxDepth` with the root at depth 0.
    assert rules(nested(12)) == []
    assert rules(nested(13)) == [SCHEMA_TOO_LARGE]
    assert at(nested(13)) == ["items"]  # the innermost `items`


def members(count: int) -> str:
    return ", ".join(f"m{index}" for index in range(count))


def test_an_enum_of_500_members_loads_and_501_do_not() -> None:
    assert rules(f"{{ enum: [{members(500)}] }}") == []
    assert rules(f"{{ enum: [{members(501)}] }}") == [SCHEMA_TOO_LARGE]


def test_200_properties_load_and_201_do_not() -> None:
    def schema(count: int) -> str:
        return "{ properties: { " + ", ".join(f"p{i}: true" for i in range(count)) + " } }"
    assert rules(schema(200)) == []
    assert rules(schema(201)) == [SCHEMA_TOO_LARGE]


def test_exactly_1000_nodes_load_and_1001_do_not() -> None:
    # root 1 + type 1 + 2 required + (1 + 1 + 247) * 4 = 1,000; a third required name: 1,001.
    def schema(required: str) -> str:
        properties = ", ".join(f"p{i}: {{ type: string, enum: [{members(247)}] }}"
                               for i in range(4))
        return f"{{ type: object, required: [{required}], properties: {{ {properties} }} }}"
    assert rules(schema("p0, p1")) == []
    assert rules(schema("p0, p1, p2")) == [SCHEMA_TOO_LARGE]


def test_a_typeless_node_is_charged_per_kind_it_constrains() -> None:
    # typelessConstrained charges one node per kind whose keywords a node carries (string,
    # number, array, object), as a `type` list of those kinds is charged per entry.
    typeless = "{ minLength: 1, minimum: 0, minItems: 0, minProperties: 0 }"
    properties = ", ".join(f"p{i}: {typeless}" for i in range(199))  # 199 * (1 + 4)
    root = "minLength: 1, minimum: 0, minItems: 0"  # with `properties`: 1 + 4
    assert rules(f"{{ {root}, properties: {{ {properties} }} }}") == []  # 1,000
    assert rules(f"{{ {root}, required: [p0], properties: {{ {properties} }} }}") == [
        SCHEMA_TOO_LARGE]
    typed = "type: [string, number, array, object], minLength: 1"
    assert rules(f"{{ {typed}, properties: {{ {properties} }} }}") == []  # 1 + 4 + 995
    assert rules(f"{{ {typed}, required: [p0], properties: {{ {properties} }} }}") == [
        SCHEMA_TOO_LARGE]


def test_strings_and_names_are_bounded_in_utf8_bytes() -> None:
    assert rules("{ const: '" + "é" * 2048 + "' }") == []  # 4,096 bytes
    assert rules("{ const: '" + "é" * 2049 + "' }") == [SCHEMA_TOO_LARGE]
    assert rules("{ type: string, pattern: '" + "a" * 4097 + "' }") == [SCHEMA_TOO_LARGE]
    assert rules("{ required: [" + "n" * 257 + "] }") == [SCHEMA_TOO_LARGE]


def value(text: str) -> Any:
    return compiled(text).value_type


def test_the_value_type_of_an_object() -> None:
    schema = """
type: object
properties:
  score: { type: integer, minimum: 0, maximum: 10 }
  label: { type: [string, 'null'], maxLength: 20 }
  tags: { type: array, items: { enum: [a, b] }, uniqueItems: true }
required: [score, id]
"""
    # `id` is required and undeclared: with extra keys forbidden no value satisfies it, and the
    # engine refuses the schema.
    assert value(schema + "additionalProperties: false\n") is None
    assert value(schema) == ObjectType(
        properties=(
            ("score", NumberType(integer=True, minimum=0, maximum=10)),
            ("label", Union((StringType(max_length=20), NullType()))),
            ("tags", ArrayType(Literals(("a", "b")), unique=True)),
            ("id", AnyValue()),
        ),
        required=frozenset({"score", "id"}),
    )


def test_the_value_type_of_values_and_kinds() -> None:
    assert value("{ type: string, enum: [a, 1, true] }") == Literals(("a",))
    assert value("{ type: integer, enum: [1, 1.5, '2'] }") == Literals((1,))
    assert value("{ type: number, enum: [a] }") == NoValue()  # the intersection is empty
    assert value("{ const: 3, enum: [1, 3] }") == Literals((3,))
    assert value("{ type: boolean, nullable: true }") == Union((BooleanType(), NullType()))
    assert value("{ description: any }") == AnyValue()
    assert value("{ type: object, additionalProperties: { type: number } }") == ObjectType(
        additional=NumberType())
    assert value("{ minLength: 2 }") == Union((
        StringType(min_length=2), NumberType(), ArrayType(), ObjectType(), BooleanType(),
        NullType()))


def test_a_value_type_says_which_type_a_key_has() -> None:
    found = value("{ type: object, properties: { a: { type: string } }, "
                  "additionalProperties: false }")
    assert isinstance(found, ObjectType)
    assert found.property("a") == StringType()
    assert found.property("b") is None


def test_each_declared_propertys_description_is_kept_for_completion_and_hover() -> None:
    value_type = compiled("""type: object
properties:
  severity: { type: number, description: 'How bad it is, 0 to 10' }
  topic: { type: string }
  note: { type: string, description: '' }
""").value_type
    assert isinstance(value_type, ObjectType)
    assert value_type.descriptions == (("severity", "How bad it is, 0 to 10"), ("note", ""))
    # not part of the shape: two schemas that differ only in their descriptions are one type
    assert value_type == compiled("type: object\nproperties:\n  severity: { type: number }\n"
                                  "  topic: { type: string }\n  note: { type: string }\n"
                                  ).value_type
