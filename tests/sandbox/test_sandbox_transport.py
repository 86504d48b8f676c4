"""The private transport decoder: closed arms, strict validation, bounded size."""

from __future__ import annotations

import json

import pytest

from sandbox import SandboxError
from sandbox.limits import MEMORY_LIMIT_BYTES
from sandbox.transport import MALFORMED, decode


def encoded(**record: object) -> str:
    return json.dumps({"v": 1, **record})


@pytest.mark.parametrize(
    "transport",
    [
        42,
        b"{}",
        "not json",
        "[]",
        json.dumps({"arm": "denied"}),  # no version
        json.dumps({"v": 2, "arm": "denied"}),
        encoded(arm="denied", detail="x"),  # the denied arm carries nothing
        encoded(arm="unknown"),
        encoded(arm="failure", phase="run", evidence="timeout", detail="x"),
        encoded(arm="failure", phase="elsewhere", evidence="runtime", detail="x"),
        encoded(arm="failure", phase="run", evidence="runtime", detail=7),
        encoded(arm="success", type="object", payload="{}", extra=1),
        encoded(arm="success", type="date", payload="1"),
        encoded(arm="success", type="string", payload="1"),
        encoded(arm="success", type="boolean", payload='"true"'),
        encoded(arm="success", type="string", tag="NaN", payload="null"),
        encoded(arm="success", type="number", tag="NaNish", payload="null"),
        encoded(arm="success", type="number", payload="NaN"),
        encoded(arm="success", type="object", payload="{"),
        # Unhashable or mistyped fields: never a TypeError from the decoder itself.
        encoded(arm="failure", phase=["run"], evidence="runtime", detail="x"),
        encoded(arm="failure", phase="run", evidence={"memory": 1}, detail="x"),
        encoded(arm="success", type=["number"], payload="1"),
        encoded(arm="success", type="number", tag=["NaN"], payload="null"),
        json.dumps({"v": True, "arm": "denied"}),
        json.dumps({"v": 1.0, "arm": "denied"}),
    ],
)
def test_malformed_transport_is_a_fixed_failure_never_success_or_denial(
    transport: object,
) -> None:
    with pytest.raises(SandboxError) as caught:
        decode(transport, "transform")
    assert (caught.value.reason, caught.value.detail) == ("runtime", MALFORMED)


def test_a_string_that_did_not_fit_the_heap_is_memory() -> None:
    with pytest.raises(SandboxError) as caught:
        decode(None, "transform")
    assert caught.value.reason == "memory"


def test_oversize_transport_is_memory_without_parsing() -> None:
    oversize = encoded(arm="success", type="string", payload=json.dumps("x" * MEMORY_LIMIT_BYTES))
    with pytest.raises(SandboxError) as caught:
        decode(oversize, "transform")
    assert caught.value.reason == "memory"


def test_well_formed_arms_decode() -> None:
    assert decode(encoded(arm="success", type="number", payload="1.5"), "condition") == 1.5
    with pytest.raises(SandboxError) as caught:
        decode(encoded(arm="denied"), "transform")
    assert caught.value.reason == "secret_context"
    with pytest.raises(SandboxError) as caught:
        decode(encoded(arm="failure", phase="compile", evidence="syntax", detail="d"), "merge")
    assert (caught.value.reason, caught.value.detail) == ("syntax", "d")
