"""Decoding the private VM→host transport and applying the result contract per kind.

The VM returns one primitive string: a versioned record with a closed `success`, `failure` or
`denied` arm. Anything else is a fixed sandbox failure, never a success or evidence of secrecy.
"""

from __future__ import annotations

import json
import math
from typing import Any, Literal

from sandbox.errors import DETAIL_TEXT_LIMIT, FailureSite, Reason, SandboxError
from sandbox.limits import MEMORY_LIMIT_BYTES
from sandbox.scope import MAX_SCOPE_DEPTH

Kind = Literal["condition", "transform", "merge"]
KINDS: tuple[Kind, ...] = ("condition", "transform", "merge")

TRANSPORT_VERSION = 1
MAX_SAFE_INTEGER = 2**53
# Containers a result may nest. Python decodes and encodes JSON recursively (the worker, the pool,
# the CLI and the language server's response all do), so a result the VM serialized ~1000 levels
# deep would raise RecursionError in the host instead of an answer. Twice the scope depth: an
# expression can always return any scope value wrapped in a few containers.
MAX_RESULT_DEPTH = 2 * MAX_SCOPE_DEPTH
MALFORMED = "malformed sandbox transport"

# Top-level numbers JSON cannot carry keep their exact value through a private tag.
NUMBER_TAGS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}
CONDITION_TYPES = frozenset({"boolean", "string", "number"})
NEVER_SERIALIZABLE_TYPES = frozenset({"undefined", "function", "symbol", "bigint"})
VM_TYPES = CONDITION_TYPES | NEVER_SERIALIZABLE_TYPES | {"object"}
# The Python type a primitive VM type must decode to.
_PYTHON_TYPES = {"boolean": (bool,), "string": (str,), "number": (int, float)}

_ARM_KEYS = {
    "denied": {"v", "arm"},
    "failure": {"v", "arm", "phase", "evidence", "detail"},
}
# The author detail of a thrown Error: its class and message, and where it was created.
_FAILURE_OPTIONAL_KEYS = {"class", "message", "line", "column"}
_SUCCESS_KEYS = {"v", "arm", "type"}
_SUCCESS_OPTIONAL_KEYS = {"payload", "tag"}
# (phase, evidence) → reason. A failure before authored code ran is the scope's, except memory;
# any failure while compiling is the expression's syntax unless a cap tripped. The `driver` and
# `serialize` memory arms are the driver's own code failing after every authored call was
# guarded; the driver decides the evidence (see driver.js), never from an error's text.
_FAILURE_REASONS: dict[tuple[str, str], Reason] = {
    ("scope", "memory"): "memory",
    ("scope", "stack"): "scope",
    ("scope", "runtime"): "scope",
    ("compile", "syntax"): "syntax",
    ("compile", "runtime"): "syntax",
    ("compile", "memory"): "memory",
    ("compile", "stack"): "stack",
    ("run", "runtime"): "runtime",
    ("run", "memory"): "memory",
    ("run", "stack"): "stack",
    ("driver", "memory"): "memory",
    ("serialize", "memory"): "memory",
}


def serialization_failed(kind: Kind) -> SandboxError:
    """The baseline disposition of a result that could not be serialized."""
    return SandboxError("result_type" if kind == "condition" else "non_serializable")


def decode(transport: object, kind: Kind) -> Any:
    """The evaluation's value, or the SandboxError its transport describes."""
    record = _parse(transport)
    arm = record.get("arm")
    if arm == "denied" and set(record) == _ARM_KEYS["denied"]:
        raise SandboxError("secret_context")
    if arm == "failure" and (
        _ARM_KEYS["failure"] <= set(record) <= _ARM_KEYS["failure"] | _FAILURE_OPTIONAL_KEYS
    ):
        phase, evidence = record["phase"], record["evidence"]
        # A JSON list or object as a field is unhashable: check the types before the lookup.
        known = isinstance(phase, str) and isinstance(evidence, str)
        reason = _FAILURE_REASONS.get((phase, evidence)) if known else None
        if reason is None or not isinstance(record["detail"], str):
            raise SandboxError("runtime", MALFORMED)
        raise SandboxError(reason, record["detail"], _failure_site(record))
    if arm == "success" and _SUCCESS_KEYS <= set(record) <= _SUCCESS_KEYS | _SUCCESS_OPTIONAL_KEYS:
        return _success(record, kind)
    raise SandboxError("runtime", MALFORMED)


def type_verdict(transport: object, kind: Kind) -> SandboxError | None:
    """The verdict of an expression whose result the host will not serialize (it returned past
    the deadline; see `sandbox.vm`): the refusal its VM type alone decides, or None when only the
    serialized value could decide. `transport` is the serializer's type-only answer; a denied or a
    failure arm raises what `decode` raises."""
    record = _parse(transport)
    if record.get("arm") == "success" and set(record) == _SUCCESS_KEYS:
        vm_type = record["type"]
        if isinstance(vm_type, str) and vm_type in VM_TYPES:
            return _type_refusal(vm_type, kind)
    decode(transport, kind)
    raise SandboxError("runtime", MALFORMED)  # a type-only answer never carries a payload


def _type_refusal(vm_type: str, kind: Kind) -> SandboxError | None:
    """The result contract's refusals that the VM type alone decides, before any serialization."""
    if kind == "condition" and vm_type not in CONDITION_TYPES:
        return SandboxError("result_type", f"a condition produced a value of type {vm_type}")
    if vm_type in NEVER_SERIALIZABLE_TYPES:
        return SandboxError("non_serializable", f"the result has type {vm_type}")
    return None


def _failure_site(record: dict[str, Any]) -> FailureSite:
    """The thrown value's class, message and position (a non-Error: `Uncaught` and its text)."""
    cls, message = record.get("class"), record.get("message")
    line, column = record.get("line"), record.get("column")
    position = None
    if type(line) is int and type(column) is int and line > 0 and column > 0:
        position = (line, column)
    if not isinstance(cls, str) or not isinstance(message, str):
        return FailureSite("Uncaught", record["detail"][:DETAIL_TEXT_LIMIT])
    return FailureSite(cls[:DETAIL_TEXT_LIMIT], message[:DETAIL_TEXT_LIMIT], position)


def _parse(transport: object) -> dict[str, Any]:
    if transport is None:
        # The binding returns None when the UTF-8 copy of the string did not fit the heap.
        raise SandboxError("memory", "the result transport did not fit the heap")
    if not isinstance(transport, str):
        raise SandboxError("runtime", MALFORMED)
    # A cheap length precheck before counting UTF-8 bytes; never truncate.
    if len(transport) > MEMORY_LIMIT_BYTES or (
        len(transport.encode("utf-8", "surrogatepass")) > MEMORY_LIMIT_BYTES
    ):
        raise SandboxError("memory", "the result transport exceeds the memory limit")
    try:
        record = json.loads(transport, parse_constant=_reject_constant)
    except ValueError:
        raise SandboxError("runtime", MALFORMED) from None
    version = record.get("v") if isinstance(record, dict) else None
    # `type` is exact: JSON `true` and `1.0` compare equal to 1 in Python.
    if type(version) is not int or version != TRANSPORT_VERSION:
        raise SandboxError("runtime", MALFORMED)
    return record


def _reject_constant(name: str) -> None:
    raise ValueError(name)


def _too_deep() -> SandboxError:
    return SandboxError("non_serializable", f"the result nests deeper than {MAX_RESULT_DEPTH}")


def _nested_deeper_than(limit: int, payload: str, value: Any) -> bool:
    """Whether the decoded `value` has more than `limit` nested containers (iteratively)."""
    if payload.count("[") + payload.count("{") <= limit:
        return False  # the common case: too few brackets to nest that deep, no walk needed
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def _js_integer(text: str) -> int | float:
    """Every JavaScript number is a double: beyond 2**53 an integer literal names a double."""
    number = int(text)
    return number if abs(number) <= MAX_SAFE_INTEGER else float(text)


def _success(record: dict[str, Any], kind: Kind) -> Any:
    vm_type = record["type"]
    payload = record.get("payload")
    tag = record.get("tag")
    if (
        not isinstance(vm_type, str)
        or vm_type not in VM_TYPES
        or (payload is not None and not isinstance(payload, str))
        or (
            tag is not None
            and (not isinstance(tag, str) or vm_type != "number" or tag not in NUMBER_TAGS)
        )
    ):
        raise SandboxError("runtime", MALFORMED)
    refusal = _type_refusal(vm_type, kind)
    if refusal is not None:
        raise refusal
    if payload is None:
        raise serialization_failed(kind)
    if tag is not None:
        return NUMBER_TAGS[tag]
    try:
        value = json.loads(payload, parse_constant=_reject_constant, parse_int=_js_integer)
    except ValueError:
        raise SandboxError("runtime", MALFORMED) from None
    except RecursionError:
        raise _too_deep() from None
    if _nested_deeper_than(MAX_RESULT_DEPTH, payload, value):
        raise _too_deep()
    if vm_type == "object" and value is not None and not isinstance(value, dict | list):
        # A boxed primitive or an object whose toJSON returns a scalar: the VM type says object
        # while the marshaled value is a primitive. null stays the one accepted exception.
        raise SandboxError("non_serializable", "an object serialized to a scalar")
    if vm_type != "object" and type(value) not in _PYTHON_TYPES[vm_type]:
        raise SandboxError("runtime", MALFORMED)
    return value
