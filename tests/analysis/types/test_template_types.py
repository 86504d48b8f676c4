"""A template reference's value as the engine's interpolation resolves it (HodeTech/Relavium
`packages/core/src/interpolation/`, 839f2bd): `references.ts` `parseHead`, `path.ts` `getByPath`
(own keys of plain objects, array indices, anything else undefined, never a throw),
`filters.ts` (`length`, `read_file`, `json`), `resolve.ts` `stringify`."""

import pytest

from analysis.document.templates import find_references
from analysis.schema.value_types import (
    AnyValue,
    ArrayType,
    NumberType,
    ObjectType,
    StringType,
    UndefinedType,
)
from analysis.types.algebra import join
from analysis.types.template_types import (
    filter_failures,
    first_missing_property,
    is_container_value,
    path_type,
    reference_path,
)


@pytest.mark.parametrize(("body", "expected"), [
    (' run.outputs["classify"].topic ', ("node", "classify", ("topic",))),
    (" run.outputs['c'][\"a b\"][0].x-y | json ", ("node", "c", ("a b", 0, "x-y"))),
    (" inputs.topic ", ("inputs", "topic", ())),
    (" ctx.team.x ", ("ctx", "team", ("x",))),
    (" run.outputs.c.x ", None),  # the dot form: invalid-template's
    (' run.outputs["c"][-1] ', None),  # a negative index is malformed
    (' run.outputs["c"].', None),
    (" run.id ", None),
])
def test_the_head_and_path_the_engine_reads(body: str, expected: object) -> None:
    parsed = reference_path(body)
    assert (None if parsed is None else (parsed.kind, parsed.identifier, parsed.steps)) \
        == expected


def test_each_step_knows_where_its_key_is_written() -> None:
    body = " run.outputs['c'] [\"a b\"][0].x-y | json "  # the path after a space
    parsed = reference_path(body)
    assert parsed is not None
    assert [body[start:end] for start, end in parsed.spans] == ["a b", "0", "x-y"]


CLOSED = ObjectType((("n", NumberType()),), frozenset({"n"}), None)


@pytest.mark.parametrize(("base", "steps", "expected"), [
    (CLOSED, ("m",), (0, CLOSED)),
    (ObjectType((("o", CLOSED),), frozenset(), None), ("o", "m"), (1, join(CLOSED,
                                                                           UndefinedType()))),
    (StringType(), ("length",), (0, StringType())),  # getByPath never steps into a string
    (ArrayType(CLOSED), (0, "n"), None),
    (ArrayType(CLOSED), (0, "m"), (1, join(CLOSED, UndefinedType()))),
    (CLOSED, (0,), None),  # an index of an object: undefined, but not a property's name
    (ObjectType(), ("m",), None),  # open: the other keys are unknown
    (join(CLOSED, AnyValue()), ("m",), None),
])
def test_the_first_property_no_value_has(base: object, steps: tuple, expected: object) -> None:  # type: ignore[type-arg]
    assert first_missing_property(base, steps) == expected  # type: ignore[arg-type]


RECORD = ObjectType((("tags", ArrayType(StringType())), ("n", NumberType())),
                    frozenset({"tags"}), None)


def test_a_path_steps_as_get_by_path_does() -> None:
    assert path_type(RECORD, ("tags",)) == ArrayType(StringType())
    assert path_type(RECORD, ("tags", 0)) == join(StringType(), UndefinedType())
    assert path_type(RECORD, ("n",)) == join(NumberType(), UndefinedType())
    assert path_type(RECORD, ("other",)) == UndefinedType()
    assert path_type(RECORD, ("tags", "length")) == UndefinedType()  # arrays: indices only
    assert path_type(StringType(), ("length",)) == UndefinedType()  # no step into a string
    assert path_type(ObjectType(), ("x",)) == AnyValue()


def filters(template: str) -> tuple:  # type: ignore[type-arg]
    (ref,) = find_references(template)
    return ref.filters


def test_a_filter_every_value_fails_is_the_first_failure() -> None:
    failure, _ = filter_failures(NumberType(), filters("{{ inputs.n | length | json }}"))
    assert failure is not None and (failure.index, failure.name) == (0, "length")
    failure, _ = filter_failures(NumberType(), filters("{{ inputs.n | read_file }}"))
    assert failure is not None and failure.expected == "a file path string"
    failure, _ = filter_failures(UndefinedType(), filters("{{ inputs.n | json }}"))
    assert failure is not None and failure.name == "json"


@pytest.mark.parametrize(("value_type", "template"), [
    (StringType(), "{{ inputs.n | length }}"),
    (RECORD, "{{ inputs.n | length }}"),
    (join(NumberType(), StringType()), "{{ inputs.n | read_file }}"),
    (AnyValue(), "{{ inputs.n | length }}"),
    (UndefinedType(), "{{ inputs.n | default(1) | length }}"),
])
def test_a_value_one_may_pass_with_is_no_failure(value_type: object, template: str) -> None:
    failure, _ = filter_failures(value_type, filters(template))  # type: ignore[arg-type]
    assert failure is None


def test_what_reaches_stringify() -> None:
    assert is_container_value(filter_failures(RECORD, filters("{{ inputs.n }}"))[1])
    assert not is_container_value(filter_failures(RECORD, filters("{{ inputs.n | json }}"))[1])
    assert not is_container_value(join(RECORD, UndefinedType()))
    assert not is_container_value(AnyValue())
