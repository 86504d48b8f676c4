"""The engine's strict JSON-Schema subset, which an authored `output_schema` (on agent and
transform nodes, and on agents) must keep to: one compiler, giving both what the engine refuses
and the type the schema describes.

Contract: `compile_output_schema(node, path)` walks the composed YAML mapping `node` as the
engine's compiler walks the parsed schema (HodeTech/Relavium
`packages/shared/src/json-schema-compiler.ts` @ 1e6de3e, strict mode, under
`AUTHORED_SCHEMA_BOUNDS` of `packages/core/src/limits.ts`; ADR-0092;
`docs/reference/shared-core/json-schema-subset.md`): it descends where the engine compiles a
subschema and nowhere else (a `type: string` node's `properties` are never compiled), counts
schema nodes as it does (each subschema, each `enum` member, each `type` entry, each `required`
name, each kind a typeless node constrains), and returns every refusal it finds, each at the key
or value at fault, with advice. The engine stops at its first refusal; each refusal here is one
the engine makes once the others are fixed. A `*alias` is not judged (the engine refuses
aliases anyway). The subset's keywords and bounds are `analysis.schema.subset`'s.
`OUTPUT_SCHEMA` is the field spec the schema walk checks `output_schema` with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from analysis.document.yaml_nodes import YAlias, YEntry, YMapping, YNode, YScalar, YSequence
from analysis.document.yaml_profile import INVALID_VALUE
from analysis.naming import Suggestions
from analysis.schema.formats import regex_problem
from analysis.schema.subset import (
    ALLOWED_KEYWORDS,
    ARRAY_KEYWORDS,
    FORMATS,
    JSON_TYPES,
    MAX_DEPTH,
    MAX_ENUM_MEMBERS,
    MAX_NODES,
    MAX_PROPERTIES,
    MAX_PROPERTY_NAME_BYTES,
    MAX_STRING_BYTES,
    NUMBER_KEYWORDS,
    OBJECT_KEYWORDS,
    REFUSED_KEYWORDS,
    SHAPES,
    STRING_KEYWORDS,
    finite_number,
    is_bool,
    is_scalar,
    is_str,
    keyword_suggestions,
    scalar_value,
    string_items,
    utf8_bytes,
)
from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    BooleanType,
    JsonScalar,
    Literals,
    NoValue,
    NullType,
    NumberType,
    ObjectType,
    StringType,
    Union,
    ValueType,
    restricted,
    union_of,
)
from analysis.schema.vocabulary import Free, MapOf, describe_node
from analysis.schema.walk import UNKNOWN_KEY, FoundFix, Walk

UNSUPPORTED_KEYWORD = "unsupported-schema-keyword"
SCHEMA_TOO_LARGE = "output-schema-too-large"

@dataclass(frozen=True)
class SchemaProblem:
    """One refusal: its rule id, the YAML node it is at, the message, the walk's fix and data."""

    rule: str
    node: YNode
    message: str
    fixes: tuple[FoundFix, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CompiledSchema:
    """What the engine makes of an `output_schema`: its refusals (none when it loads), and the
    type of the values it accepts — None when it refuses the schema, or when a part of it is
    not judged here (an alias)."""

    problems: tuple[SchemaProblem, ...]
    value_type: ValueType | None


def compile_output_schema(node: YNode, path: str = "output_schema") -> CompiledSchema:
    """The engine's strict compile of the `output_schema` value `node` (its messages name the
    field by `path`). The value type promises exactly the values the engine's validator accepts
    (see `analysis.schema.value_types`), for a schema the engine loads."""
    compiler = _Compiler()
    value_type = compiler.schema(node, 0, path, node)
    if not isinstance(node, YMapping):
        value_type = None  # the workflow schema wants a mapping (reported by the walk)
    # A keyword read once per listed type (`type: [integer, number]`) is refused once.
    unique = tuple({(problem.rule, problem.node.start, problem.node.end, problem.message): problem
                    for problem in compiler.problems}.values())
    return CompiledSchema(unique, None if unique or compiler.unjudged else value_type)


class _Compiler:
    def __init__(self) -> None:
        self.problems: list[SchemaProblem] = []
        self.nodes = 0
        self.unjudged = False  # an alias was met: its part of the type is unknown

    def report(self, rule: str, node: YNode, message: str, fixes: tuple[FoundFix, ...] = (),
               **data: Any) -> None:
        self.problems.append(SchemaProblem(rule, node, message, fixes, data))

    def invalid(self, node: YNode, message: str) -> None:
        self.report(INVALID_VALUE, node, message)

    def charge(self, count: int, anchor: YNode, path: str) -> None:
        """Count `count` schema nodes toward the bound, refusing where the engine's count first
        passes it."""
        before = self.nodes
        self.nodes += count
        if before <= MAX_NODES < self.nodes:
            self.report(SCHEMA_TOO_LARGE, anchor,
                        f"{path}: the output_schema passes {MAX_NODES:,} schema nodes here (each "
                        "subschema, enum member, type entry and required name counts): the "
                        "engine refuses it; describe less of the output, or split the node")

    def schema(self, node: YNode, depth: int, path: str, anchor: YNode) -> ValueType | None:
        """`compileNode`: the type of one schema node, reporting what the engine refuses."""
        if isinstance(node, YAlias):
            self.unjudged = True
            return None
        if depth > MAX_DEPTH:
            self.report(SCHEMA_TOO_LARGE, anchor,
                        f"{path} nests {depth} schemas deep; the engine refuses an output_schema "
                        f"nested more than {MAX_DEPTH} deep: flatten the output")
            return None
        self.charge(1, anchor, path)
        if is_bool(node):
            return AnyValue() if scalar_value(node) else NoValue()
        if not isinstance(node, YMapping):
            self.invalid(node, f"{path} must be a schema (a mapping) or true/false, not "
                               f"{describe_node(node)}")
            return None
        broken = self.admit(node, path)
        literals = self.literals(node, path)
        type_entry = node.get("type")
        if type_entry is not None and "type" in broken:
            return None  # which subschemas the engine compiles depends on the type
        types = self.types(type_entry, path) if type_entry is not None else []
        if types is None:
            return None
        shape: ValueType | None
        if types:
            built = [self.typed(kind, node, depth, path, broken) for kind in types]
            known = [option for option in built if option is not None]
            shape = union_of(known) if len(known) == len(built) else None
        else:
            shape = self.typeless(node, depth, path, broken)
        if shape is None:
            return None
        result = shape if literals is None else restricted(literals, shape)
        nullable = node.get("nullable")
        if nullable is not None and getattr(nullable.value, "value", None) is True:
            result = union_of([result, NullType()])
        return result

    def admit(self, node: YMapping, path: str) -> set[str]:
        """`admitKeywords`: refuse keys outside the subset and malformed values of its keywords;
        returns the keywords whose value is malformed (not compiled further)."""
        for entry in node.entries:
            key = entry.key.text
            if key in REFUSED_KEYWORDS:
                self.report(UNSUPPORTED_KEYWORD, entry.key,
                            f"{path}: '{key}' is not in the engine's JSON Schema subset: "
                            f"{REFUSED_KEYWORDS[key]}", keyword=key)
            elif key not in ALLOWED_KEYWORDS:
                closest = keyword_suggestions().closest(key)
                hint = f"did you mean '{closest}'?" if closest else \
                    "the subset takes only the keywords docs/rules.md#unsupported-schema-keyword " \
                    "lists"
                fixes = (FoundFix(f"Change `{key}` to `{closest}`",
                                  ((entry.key.start, entry.key.end, closest),), safe=False),
                         ) if closest else ()
                self.report(UNKNOWN_KEY, entry.key,
                            f"{path}: unknown JSON Schema keyword '{key}'; {hint}", fixes,
                            key=key, **({"replacement": closest} if closest else {}))
        broken: set[str] = set()
        for key, test, expected in SHAPES:
            found = node.get(key)
            if found is None or isinstance(found.value, YAlias) or test(found.value):
                continue
            broken.add(key)
            if key == "items" and isinstance(found.value, YSequence):
                self.report(UNSUPPORTED_KEYWORD, found.key,
                            f"{path}: tuple items (a list of schemas) are not in the engine's "
                            "JSON Schema subset: use one items schema for every item",
                            keyword="items")
            else:
                self.invalid(found.value, f"{path}.{key} must be {expected}, not "
                                          f"{describe_node(found.value)}")
        return broken

    def literals(self, node: YMapping, path: str) -> Literals | None:
        """`readConstOrEnum`: the values `const` and `enum` allow (both: those in both)."""
        allowed: list[JsonScalar] | None = None
        const = node.get("const")
        if const is not None and self.literal(const.value, f"{path}.const"):
            allowed = [scalar_value(const.value)]
        enum = node.get("enum")
        if enum is not None and isinstance(enum.value, YSequence) and enum.value.items:
            members = enum.value.items
            if len(members) > MAX_ENUM_MEMBERS:
                self.report(SCHEMA_TOO_LARGE, enum.key,
                            f"{path}.enum has {len(members):,} members; the engine allows at "
                            f"most {MAX_ENUM_MEMBERS}: use a type with bounds or a pattern")
                return None
            self.charge(len(members), enum.key, f"{path}.enum")
            valid = [self.literal(member, f"{path}.enum[{index}]")
                     for index, member in enumerate(members)]
            values = [scalar_value(member) for member in members]
            if all(valid):
                allowed = values if allowed is None else [
                    value for value in allowed if any(_same(value, other) for other in values)]
        return None if allowed is None else Literals(tuple(allowed))

    def literal(self, node: YNode, path: str) -> bool:
        """`literalSchema`: a finite number, a string of at most 4 KiB, a boolean or null."""
        if isinstance(node, YAlias):
            self.unjudged = True
            return False
        if not is_scalar(node):
            self.invalid(node, f"{path} must be a string, number, boolean or null (the subset "
                               f"compares scalars only), not {describe_node(node)}")
            return False
        value = scalar_value(node)
        if isinstance(value, str) and utf8_bytes(value) > MAX_STRING_BYTES:
            self.report(SCHEMA_TOO_LARGE, node,
                        f"{path} is {utf8_bytes(value):,} bytes long; the engine allows at most "
                        f"{MAX_STRING_BYTES:,} (4 KiB) in a const or enum string")
            return False
        return True

    def types(self, entry: YEntry, path: str) -> list[str] | None:
        """`readTypes`: the declared type names (charged), None when one is not a JSON type."""
        items = entry.value.items if isinstance(entry.value, YSequence) else [entry.value]
        self.charge(len(items), entry.key, f"{path}.type")
        names = [str(scalar_value(item)) for item in items]
        unknown = [(item, name) for item, name in zip(items, names, strict=True)
                   if name not in JSON_TYPES]
        for item, name in unknown:
            closest = Suggestions(JSON_TYPES).closest(name)
            hint = f" (did you mean '{closest}'?)" if closest else ""
            self.invalid(item, f"{path}.type '{name}' is not a JSON type: one of "
                               f"{', '.join(JSON_TYPES)}{hint}")
        return None if unknown else names

    def typed(self, kind: str, node: YMapping, depth: int, path: str,
              broken: set[str]) -> ValueType | None:
        """`compileTyped`: the schema read as a value of one type."""
        if kind == "string":
            return self.string(node, path)
        if kind in ("number", "integer"):
            return self.number(node, path, integer=kind == "integer")
        if kind == "boolean":
            return BooleanType()
        if kind == "null":
            return NullType()
        if kind == "object":
            return self.object(node, depth, path, broken)
        return self.array(node, depth, path, broken)

    def typeless(self, node: YMapping, depth: int, path: str,
                 broken: set[str]) -> ValueType | None:
        """`typelessConstrained`: each kind's keywords apply to values of that kind."""
        groups = [any(node.get(key) is not None for key in keys)
                  for keys in (STRING_KEYWORDS, NUMBER_KEYWORDS, ARRAY_KEYWORDS, OBJECT_KEYWORDS)]
        if not any(groups):
            return AnyValue()
        self.charge(sum(groups), node.entries[0].key, path)
        string = self.string(node, path) if groups[0] else StringType()
        number = self.number(node, path, integer=False) if groups[1] else NumberType()
        array = self.array(node, depth, path, broken) if groups[2] else ArrayType()
        obj = self.object(node, depth, path, broken) if groups[3] else ObjectType()
        parts = [part for part in (string, number, array, obj) if part is not None]
        if len(parts) < 4:
            return None
        return Union((*parts, BooleanType(), NullType()))

    def bound(self, node: YMapping, key: str, path: str, *, integer: bool = False,
              positive: bool = False) -> float | None:
        """`readBound`: a finite number (a non-negative integer for counts, > 0 for
        multipleOf); a malformed one is refused."""
        entry = node.get(key)
        if entry is None or isinstance(entry.value, YAlias):
            return None
        value = finite_number(entry.value)
        bad = value is None or (integer and (not float(value).is_integer() or value < 0)) or \
            (positive and value <= 0)
        if bad:
            expected = "a non-negative integer" if integer else \
                "a number greater than 0" if positive else "a finite number"
            shown = describe_node(entry.value)
            quoted = entry.value.style in ("'", '"') if isinstance(entry.value, YScalar) else False
            self.invalid(entry.value, f"{path}.{key} must be {expected}, not {shown}"
                                      + ("; remove the quotes" if quoted else ""))
            return None
        return value

    def string(self, node: YMapping, path: str) -> ValueType | None:
        """`stringSchema`: lengths, a format of the subset's, a pattern that compiles."""
        min_length = self.bound(node, "minLength", path, integer=True)
        max_length = self.bound(node, "maxLength", path, integer=True)
        ok = True
        format_entry = node.get("format")
        value_format = None
        if format_entry is not None and is_str(format_entry.value):
            value_format = str(scalar_value(format_entry.value))
            if value_format not in FORMATS:
                ok = False
                closest = Suggestions(FORMATS).closest(value_format)
                hint = f" (did you mean '{closest}'?)" if closest else ""
                self.report(INVALID_VALUE, format_entry.value,
                            f"{path}.format '{value_format}' is not one the engine checks: one "
                            f"of {', '.join(FORMATS)}{hint}; a pattern can check the rest", (),
                            **({"replacement": closest} if closest else {}))
            elif min_length is not None or max_length is not None:
                # The compiler wraps a length-bounded string in a refinement, which has no
                # format methods: the compile throws (a TypeError it reports as a refusal).
                ok = False
                self.report(UNSUPPORTED_KEYWORD, format_entry.key,
                            f"{path}: the engine's compiler refuses a format beside minLength or "
                            "maxLength (it applies the format to the length-checked string, "
                            "which fails): drop the length bounds, or check the text with a "
                            "pattern instead of the format", keyword="format")
        pattern_entry = node.get("pattern")
        pattern = None
        if pattern_entry is not None and is_str(pattern_entry.value):
            pattern = str(scalar_value(pattern_entry.value))
            if utf8_bytes(pattern) > MAX_STRING_BYTES:
                ok = False
                self.report(SCHEMA_TOO_LARGE, pattern_entry.value,
                            f"{path}.pattern is {utf8_bytes(pattern):,} bytes long; the engine "
                            f"allows at most {MAX_STRING_BYTES:,} (4 KiB): simplify it")
            elif (problem := regex_problem(pattern)) is not None:
                ok = False
                self.invalid(pattern_entry.value,
                             f"{path}.pattern is not a valid JavaScript regular expression "
                             f"({problem}): fix it, the engine compiles it when it loads")
        lengths_ok = not any(node.get(key) is not None and value is None
                             for key, value in (("minLength", min_length),
                                                ("maxLength", max_length)))
        if not (ok and lengths_ok):
            return None
        return StringType(_int(min_length), _int(max_length), pattern, value_format)

    def number(self, node: YMapping, path: str, *, integer: bool) -> ValueType | None:
        """`numberSchema`: inclusive and exclusive bounds, multipleOf."""
        keys = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
        values = [self.bound(node, key, path, positive=key == "multipleOf") for key in keys]
        if any(node.get(key) is not None and value is None
               for key, value in zip(keys, values, strict=True)):
            return None
        minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of = values
        return NumberType(integer, minimum, maximum, exclusive_minimum, exclusive_maximum,
                          multiple_of)

    def object(self, node: YMapping, depth: int, path: str,
               broken: set[str]) -> ValueType | None:
        """`objectSchema`: properties (at most 200), required names, extra keys, counts."""
        failed = len(self.problems)
        properties = node.get("properties")
        declared = properties.value.entries if properties is not None and \
            "properties" not in broken and isinstance(properties.value, YMapping) else []
        if len(declared) > MAX_PROPERTIES:
            assert properties is not None
            self.report(SCHEMA_TOO_LARGE, properties.key,
                        f"{path}.properties declares {len(declared)} properties; the engine "
                        f"allows at most {MAX_PROPERTIES} in one object: nest related ones")
        required_entry = node.get("required")
        required = string_items(required_entry.value) if required_entry is not None and \
            "required" not in broken else []
        if required_entry is not None and required:
            self.charge(len(required), required_entry.key, f"{path}.required")
            for index, item in enumerate(required):
                self.name(item, str(item.value), f"{path}.required[{index}]")
        known, additional = self.additional(node, depth, path, broken)
        typed: list[tuple[str, ValueType | None]] = []
        for entry in declared:
            self.name(entry.key, entry.key.text, f"{path}.properties")
            typed.append((entry.key.text, self.schema(
                entry.value, depth + 1, f"{path}.properties.{entry.key.text}", entry.key)))
        names = {declared_name for declared_name, _ in typed}
        for index, item in enumerate(required or ()):
            name = str(item.value)
            if name in names or name == "__proto__":  # `__proto__` is reported by `name`
                continue
            if known and additional is None:
                self.invalid(item, f"{path}.required[{index}] '{name}' is not declared in "
                                   "properties, and additionalProperties: false forbids it: no "
                                   "value can satisfy the schema; declare it under properties")
            typed.append((name, additional))
            names.add(name)
        counts = [self.bound(node, key, path, integer=True)
                  for key in ("minProperties", "maxProperties")]
        complete = [(name, value) for name, value in typed if value is not None]
        if len(self.problems) > failed or not known or len(complete) < len(typed):
            return None
        return ObjectType(tuple(complete), frozenset(str(item.value) for item in required or ()),
                          additional, _int(counts[0]), _int(counts[1]), _descriptions(declared))

    def name(self, node: YScalar, name: str, path: str) -> None:
        """`rejectProtoKey` and the property-name byte bound."""
        if name == "__proto__":
            self.invalid(node, f"{path}: a property named '__proto__' is not allowed (the "
                               "engine refuses it as a prototype-pollution guard): rename it")
        elif utf8_bytes(name) > MAX_PROPERTY_NAME_BYTES:
            self.report(SCHEMA_TOO_LARGE, node,
                        f"{path}: a property name of {utf8_bytes(name):,} bytes; the engine allows "
                        f"at most {MAX_PROPERTY_NAME_BYTES}: use a shorter name")

    def additional(self, node: YMapping, depth: int, path: str,
                   broken: set[str]) -> tuple[bool, ValueType | None]:
        """`additionalPropsMode`: whether the extra keys' type is known, and that type (None
        when they are forbidden)."""
        entry = node.get("additionalProperties")
        if entry is None:
            return True, AnyValue()
        if "additionalProperties" in broken:
            return False, None
        if isinstance(entry.value, YAlias):
            self.unjudged = True
            return False, None
        if isinstance(entry.value, YMapping):
            value = self.schema(entry.value, depth + 1, f"{path}.additionalProperties", entry.key)
            return value is not None, value
        return True, AnyValue() if getattr(entry.value, "value", None) is True else None

    def array(self, node: YMapping, depth: int, path: str,
              broken: set[str]) -> ValueType | None:
        """`arraySchema`: one items schema, counts, uniqueItems."""
        entry = node.get("items")
        items: ValueType | None = AnyValue()
        if entry is not None:
            items = None if "items" in broken else \
                self.schema(entry.value, depth + 1, f"{path}.items", entry.key)
        min_items = self.bound(node, "minItems", path, integer=True)
        max_items = self.bound(node, "maxItems", path, integer=True)
        unique = node.get("uniqueItems")
        if items is None or any(node.get(key) is not None and value is None
                                for key, value in (("minItems", min_items),
                                                   ("maxItems", max_items))):
            return None
        return ArrayType(items, _int(min_items), _int(max_items),
                         unique is not None and getattr(unique.value, "value", None) is True)


def _descriptions(declared: list[YEntry]) -> tuple[tuple[str, str], ...]:
    """Each declared property's `description` text (for completion and hover)."""
    found = ((entry.key.text, entry.value.get("description")) for entry in declared
             if isinstance(entry.value, YMapping))
    return tuple((name, str(scalar_value(text.value))) for name, text in found
                 if text is not None and is_str(text.value))


def _int(value: float | None) -> int | None:
    return None if value is None else int(value)


def _same(left: JsonScalar, right: JsonScalar) -> bool:
    """JavaScript's `===` between two JSON scalars (True is not 1)."""
    return isinstance(left, bool) is isinstance(right, bool) and left == right


@dataclass
class OutputSchema(MapOf):
    """The `output_schema` field: a mapping the engine compiles in its strict subset."""

    value: Free = field(default_factory=Free)

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        if not isinstance(node, YMapping):
            super().check(walk, node, path)  # "must be a mapping"
            return
        for problem in compile_output_schema(node, path).problems:
            walk.report(problem.rule, problem.node, problem.message, problem.fixes,
                        **problem.data)


OUTPUT_SCHEMA = OutputSchema(doc="A JSON Schema in the engine's strict subset, which the "
                                 "output must conform to.")
