"""The scope an expression sees: inputs, the context projection, run.outputs and branches.

Values are JSON data. Secret provenance is by declaration, never by value scanning: a declared
secret input that is present, and every denied context key, reaches the VM only as a key whose
read fails with `secret_context`; its raw value is dropped when the `Scope` is built and never
leaves the host.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii
from typing import Any

import orjson

# Container nesting admitted inside one scope value. The VM rebuilds the scope with JSON.parse
# and freezes it iteratively; 128 leaves ample room below the 256 KB stack for authored code.
MAX_SCOPE_DEPTH = 128

JsonValue = Any
SCOPE_FIELDS = ("inputs", "ctx", "run", "branches", "secret_inputs", "secret_ctx")


class ScopeError(ValueError):
    """A scope that cannot be admitted; the message names the field and what to do."""


class SharedValue:
    """One scope value (directly under `inputs`, `run.outputs` or `branches`) admitted once and
    serialised at most once, for a caller that hands the same value to many evaluations: a
    whole dry run gives every node its ancestors' outputs, and re-checking and re-serialising
    each of them per node made the run quadratic in the workflow's length. The request a scope
    holding one makes is byte-identical to the one holding the plain value.

    The check (`_check_json`, raising `ScopeError` naming `where`) runs here; serialisation
    runs at the first `vm_request`, so that a failure there is the same `scope` SandboxError.
    """

    __slots__ = ("_member", "_text", "value")

    def __init__(self, value: JsonValue, where: str) -> None:
        _check_json(value, where, 0)
        self.value = value
        self._text: str | None = None
        self._member: tuple[object, str] | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = _serialize(self.value)  # a race only serialises it twice, alike
        return self._text

    def member(self, key: object) -> str:
        """`"key": text`, kept for the key it was last asked under (a node's output is always
        under its id)."""
        if self._member is None or self._member[0] != key:
            self._member = (key, f"{_key_text(key)}: {self.text}")
        return self._member[1]


def _is_referenceable(key: str) -> bool:
    """A key an expression can write as `ctx.key` (JavaScript identifiers also allow `$`)."""
    return key.replace("$", "_").isidentifier()


def _unique(names: Iterable[str], where: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for name in names:
        if name in seen:
            raise ScopeError(f"{where}: {name!r} is listed twice; list each key once")
        seen[name] = None
    return tuple(seen)


@dataclass(frozen=True)
class ContextProjection:
    """The eager-once context projection: clean string values plus denied keys, in full order.

    `ordered_keys` is the original context key order and must be exactly the disjoint union of
    the clean and denied keys; left empty, it is the clean keys followed by the denied keys.
    """

    values: Mapping[str, str] = field(default_factory=dict)
    denied_keys: tuple[str, ...] = ()
    ordered_keys: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        values = dict(self.values)
        denied = _unique(self.denied_keys, "scope.secret_ctx")
        for key, value in values.items():
            if not isinstance(key, str) or not _is_referenceable(key):
                raise ScopeError(f"scope.ctx: {key!r} is not an identifier; rename the key")
            if not isinstance(value, str):
                raise ScopeError(
                    f"scope.ctx.{key}: must be a string (context values are strings); "
                    "list the key in secret_ctx to make it a denied key"
                )
        for key in denied:
            if not isinstance(key, str) or not _is_referenceable(key):
                raise ScopeError(f"scope.secret_ctx: {key!r} is not an identifier; rename the key")
            if key in values:
                raise ScopeError(f"scope.ctx.{key}: a denied key cannot also have a clean value")
        ordered = _unique(self.ordered_keys or (*values, *denied), "scope.ctx key order")
        if set(ordered) != set(values) | set(denied):
            raise ScopeError(
                "scope.ctx key order: must list every clean and every denied key exactly once"
            )
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "denied_keys", denied)
        object.__setattr__(self, "ordered_keys", ordered)


@dataclass(frozen=True)
class Scope:
    """Everything one evaluation may read. `branches` is bound for `merge` only.

    `secret_inputs` are the declared secret input names: a present one becomes a denied key
    (its value is dropped here), an absent one stays absent.
    """

    inputs: Mapping[str, JsonValue] = field(default_factory=dict)
    ctx: ContextProjection = field(default_factory=ContextProjection)
    run_outputs: Mapping[str, JsonValue] = field(default_factory=dict)
    branches: Sequence[JsonValue] = ()
    secret_inputs: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        secret = frozenset(self.secret_inputs)
        inputs = {key: None if key in secret else value for key, value in self.inputs.items()}
        object.__setattr__(self, "inputs", inputs)
        object.__setattr__(self, "run_outputs", dict(self.run_outputs))
        object.__setattr__(self, "branches", tuple(self.branches))
        object.__setattr__(self, "secret_inputs", secret)

    @property
    def denied_inputs(self) -> tuple[str, ...]:
        """Present declared secret inputs, in input order: the VM's denied input keys."""
        return tuple(key for key in self.inputs if key in self.secret_inputs)

    @classmethod
    def from_json(cls, obj: object) -> Scope:
        """Build a scope from the sample-scope JSON shape, every part optional::

            {"inputs": {}, "ctx": {}, "run": {"outputs": {}}, "branches": [],
             "secret_inputs": [], "secret_ctx": []}

        A `ctx` key listed in `secret_ctx` keeps its position and loses its value; a
        `secret_ctx` key missing from `ctx` is appended. Raises `ScopeError` naming the field.
        """
        if not isinstance(obj, dict):
            raise ScopeError("scope: must be a JSON object with inputs, ctx, run, branches, ...")
        unknown = [key for key in obj if key not in SCOPE_FIELDS]
        if unknown:
            raise ScopeError(
                f"scope.{unknown[0]}: unknown field; expected one of {', '.join(SCOPE_FIELDS)}"
            )
        inputs = _object(obj.get("inputs", {}), "scope.inputs")
        run = _object(obj.get("run", {}), "scope.run")
        if any(key != "outputs" for key in run):
            raise ScopeError("scope.run: only `outputs` is allowed")
        outputs = _object(run.get("outputs", {}), "scope.run.outputs")
        branches = obj.get("branches", [])
        if not isinstance(branches, list):
            raise ScopeError("scope.branches: must be a JSON array of branch outputs")
        # Secret values are dropped before anything is validated: no message below can quote
        # a key or a value from inside a secret input or a denied context entry.
        secret_inputs = _names(obj.get("secret_inputs", []), "scope.secret_inputs")
        secret_ctx = _names(obj.get("secret_ctx", []), "scope.secret_ctx")
        inputs = {key: None if key in secret_inputs else value for key, value in inputs.items()}
        ctx = _object(obj.get("ctx", {}), "scope.ctx")
        ctx = {key: None if key in secret_ctx else value for key, value in ctx.items()}
        _check_json(inputs, "scope.inputs", -1)
        _check_json(outputs, "scope.run.outputs", -1)
        _check_json(branches, "scope.branches", -1)
        ordered = _unique([*ctx, *(key for key in secret_ctx if key not in ctx)], "scope.ctx")
        clean = {key: value for key, value in ctx.items() if key not in secret_ctx}
        projection = ContextProjection(clean, secret_ctx, ordered)
        return cls(inputs, projection, outputs, branches, frozenset(secret_inputs))

    def to_json(self) -> dict[str, JsonValue]:
        """The `from_json` shape, already without secret values (safe to pass to a worker)."""
        return {
            "inputs": {key: _plain(value) for key, value in self.inputs.items()},
            "ctx": {key: self.ctx.values.get(key) for key in self.ctx.ordered_keys},
            "run": {"outputs": {key: _plain(value) for key, value in self.run_outputs.items()}},
            "branches": [_plain(value) for value in self.branches],
            "secret_inputs": sorted(self.secret_inputs),
            "secret_ctx": list(self.ctx.denied_keys),
        }

    def vm_request(self, kind: str, script: str) -> str:
        """The JSON request the VM driver parses. Raises `ScopeError` for non-JSON values."""
        try:
            # `json.dumps` of the request object, assembled from its members' texts so that a
            # SharedValue is serialised once for all the requests it goes into.
            members = [
                ("kind", _serialize(kind)),
                ("source", _serialize(script)),
                ("inputs", _object_text(self.inputs)),
                ("deniedInputs", _serialize(self.denied_inputs)),
                ("ctx", _serialize(
                    {key: self.ctx.values.get(key) for key in self.ctx.ordered_keys}
                )),
                ("deniedCtx", _serialize(self.ctx.denied_keys)),
                ("outputs", _object_text(self.run_outputs)),
                ("branches", _array_text(self.branches if kind == "merge" else ())),
            ]
            return "{" + ", ".join(f'"{name}": {text}' for name, text in members) + "}"
        except (TypeError, ValueError, RecursionError) as error:
            # Only the kind of failure: the message must not carry a scope value.
            raise ScopeError(f"scope: not JSON-serializable ({type(error).__name__})") from None


# orjson serialises what json.dumps would refuse (dataclasses, datetimes, subclasses of the JSON
# types with their own behaviour) unless told to pass it through to a `default`; none is given, so
# it refuses them and json.dumps decides.
_ORJSON_STRICT = (
    orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def _serialize(value: object) -> str:
    """The one JSON serialiser of scope values.

    orjson first (a tenth of json.dumps's time on an 18 KB scope, docs/sandbox.md); json.dumps
    whenever orjson refuses the value (a lone surrogate, which the binding refuses in strings
    passed to the VM and json.dumps escapes; an integer past 64 bits; a non-string key, which
    json.dumps coerces; nesting past orjson's limit), when its text holds `null` anywhere (orjson
    writes NaN and ±Infinity as `null`, which json.dumps refuses, and no other text can hide
    them) and when it is not ASCII: the request stays ASCII, as the worker pool's line protocol
    and the binding expect (json.dumps escapes every other character). No marker dict of visited
    containers in json.dumps (a tenth of its encoding): a cycle still fails, as a RecursionError
    at the nesting limit."""
    try:
        text = orjson.dumps(value, option=_ORJSON_STRICT)
    except orjson.JSONEncodeError:
        pass
    else:
        if b"null" not in text and text.isascii():
            return text.decode()
    return json.dumps(value, allow_nan=False, check_circular=False)


def _piece(value: object) -> str:
    return value.text if isinstance(value, SharedValue) else _serialize(value)


def _key_text(key: object) -> str:
    if isinstance(key, str):
        return encode_basestring_ascii(key)
    # json.dumps's coercion of a non-string key (an int becomes "1"), taken from json.dumps
    return _serialize({key: None})[1 : -len(": null}")]


def _object_text(mapping: Mapping[Any, object]) -> str:
    """`json.dumps(mapping)` (default separators) with each SharedValue's own text."""
    return "{" + ", ".join(_member_text(key, value) for key, value in mapping.items()) + "}"


def _member_text(key: object, value: object) -> str:
    if isinstance(value, SharedValue):
        return value.member(key)
    return f"{_key_text(key)}: {_serialize(value)}"


def _array_text(items: Sequence[object]) -> str:
    return "[" + ", ".join(_piece(item) for item in items) + "]"


def _plain(value: object) -> JsonValue:
    return value.value if isinstance(value, SharedValue) else value


def _object(value: object, where: str) -> dict[str, JsonValue]:
    if not isinstance(value, dict):
        raise ScopeError(f"{where}: must be a JSON object")
    return value


def _names(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ScopeError(f"{where}: must be a JSON array of key names (strings)")
    return _unique(value, where)


def _check_json(value: object, where: str, depth: int) -> None:
    """JSON data only, nested at most MAX_SCOPE_DEPTH containers deep below each binding key."""
    if isinstance(value, dict | list) and depth > MAX_SCOPE_DEPTH:
        raise ScopeError(f"{where}: nested deeper than {MAX_SCOPE_DEPTH} levels; flatten it")
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ScopeError(f"{where}: object keys must be strings")
            if not (depth == -1 and isinstance(item, SharedValue)):  # admitted when made
                _check_json(item, f"{where}.{key}", depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if not (depth == -1 and isinstance(item, SharedValue)):
                _check_json(item, f"{where}[{index}]", depth + 1)
    elif isinstance(value, float) and not math.isfinite(value):
        raise ScopeError(f"{where}: NaN and Infinity are not JSON; use null or a string")
    elif value is not None and not isinstance(value, bool | int | float | str):
        raise ScopeError(f"{where}: {type(value).__name__} is not a JSON value")
