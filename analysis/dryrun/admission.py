"""The engine's input admission, applied to the inputs a samples file supplies.

Contract: `admission_problems(workflow, supplied)` → one message per input the newest engine's
`start()` would refuse (ADR-0083 §1-2 and §4, as amended 2026-08-19; the engine's
`resolveAndValidateWorkflowInputs` and packages/shared/src/workflow.ts `violatesInputContract`,
HodeTech/Relavium 115ad1b): a key the workflow declares no input for, a value of the wrong type
(the engine is strict: `"3"` is not a number, `null` is a value and fails every type, a number
must be finite), and a value outside its `validation` block (enum by `Object.is`, min/max,
min_length/max_length in UTF-16 code units, the closed format vocabulary, the anchored
flagless pattern). Messages name the input and why, never the value. A required input the
samples omit is not reported here: a dry run fills it with a placeholder and notes it.
"""

from __future__ import annotations

import math
import re
from typing import Any

from analysis.document.model import Workflow
from analysis.dryrun.samples import Samples, SampleScopeError
from analysis.types.inputs import input_field
from sandbox import Scope, evaluate

# an unknown key is named only when it has an input name's shape (it comes from the samples file)
NAME_SHAPE = re.compile(r"[A-Za-z0-9_-]+")
TEXT_TYPES = frozenset({"string", "file_path", "code_diff", "secret"})

# The engine's pragmatic format checks (workflow.ts FORMAT_CHECKS): no whitespace or control
# character in any of them.
_NO_CTRL = r"[^\s\x00-\x1f\x7f]"
_NO_CTRL_NO_AT = r"[^\s\x00-\x1f\x7f@]"
_NO_CTRL_LABEL = r"[^\s\x00-\x1f\x7f@.]"
FORMATS = {
    "email": re.compile(rf"{_NO_CTRL_NO_AT}+@{_NO_CTRL_LABEL}+(?:\.{_NO_CTRL_LABEL}+)+"),
    "uri": re.compile(rf"[a-z][a-z\d+.-]*:{_NO_CTRL}+", re.IGNORECASE),
    "uuid": re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                       re.IGNORECASE),
    "date-time": re.compile(
        r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[Tt](?:[01]\d|2[0-3]):[0-5]\d:"
        r"(?:[0-5]\d|60)(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)",
        re.ASCII,
    ),
}
# The pattern is JavaScript's: it runs in the sandbox, anchored and without flags, as the engine
# runs it. A pattern the sandbox cannot run gives no verdict.
PATTERN_TEST = "new RegExp('^(?:' + inputs.pattern + ')$').test(inputs.value)"


def admit(workflow: Workflow, samples: Samples) -> None:
    """Raise SampleScopeError naming every supplied input the engine would refuse, in the
    samples and in each `nodes.<id>.inputs` override; a skeleton's own placeholders (no
    samples file) are not a caller's inputs."""
    if samples.path is None:
        return
    problems = admission_problems(workflow, samples.inputs)
    for node_id, own in samples.nodes.items():
        # an override replaces only the inputs it names: the rest were admitted above
        problems += [f"in `nodes.{node_id}`: {problem}"
                     for problem in admission_problems(workflow, own.get("inputs") or {})]
    if problems:
        raise SampleScopeError(f"sample scope {samples.path}: " + "; ".join(problems))


def admission_problems(workflow: Workflow, supplied: dict[str, Any]) -> list[str]:
    declared = {decl.name: decl for decl in workflow.inputs if decl.name is not None}
    problems = []
    for key in supplied:
        if key not in declared:
            named = f"`{key}`" if NAME_SHAPE.fullmatch(key) else "(a key)"
            problems.append(f"sample input {named} is not declared by the workflow: the engine "
                            "refuses an unknown input — remove it or declare it")
    for name, decl in declared.items():
        if name not in supplied:
            continue
        validation = input_field(decl, "validation")
        reason = contract_violation(supplied[name], decl.type or "",
                                    validation if isinstance(validation, dict) else {})
        if reason is not None:
            problems.append(f"sample input `{name}`: {reason} — the engine refuses it at "
                            "start() (it does not coerce)")
    return problems


def contract_violation(value: Any, kind: str, validation: dict[str, Any]) -> str | None:
    """Why `value` fails the input contract of type `kind`, or None (also when the type is one
    this check does not know: the engine would refuse the workflow first)."""
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
            value
        ):
            return "expected a finite number"
    elif kind == "boolean":
        if not isinstance(value, bool):
            return "expected a boolean"
    elif kind in TEXT_TYPES:
        if not isinstance(value, str):
            return "expected a string"
    else:
        return None
    enum = validation.get("enum")
    if isinstance(enum, list) and not any(_same(member, value) for member in enum):
        return "the value is not one of the allowed enum members"
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _bounds(value, validation)
    return _text(value, validation)


def _same(member: Any, value: Any) -> bool:
    """JavaScript's `Object.is` for the primitives an enum holds: `0` is not `-0`."""
    if isinstance(member, bool) or isinstance(value, bool):
        return member is value
    if isinstance(member, int | float) and isinstance(value, int | float):
        return member == value and math.copysign(1, member) == math.copysign(1, value)
    return type(member) is type(value) and member == value


def _bounds(value: float, validation: dict[str, Any]) -> str | None:
    low, high = _bound(validation, "min"), _bound(validation, "max")
    if low is not None and value < low:
        return "the value is below the declared minimum"
    if high is not None and value > high:
        return "the value is above the declared maximum"
    return None


def _bound(validation: dict[str, Any], key: str) -> float | None:
    bound = validation.get(key)
    return bound if isinstance(bound, int | float) and not isinstance(bound, bool) else None


def _text(value: str, validation: dict[str, Any]) -> str | None:
    length = len(value.encode("utf-16-le")) // 2  # JavaScript's `length`
    shortest, longest = _bound(validation, "min_length"), _bound(validation, "max_length")
    if shortest is not None and length < shortest:
        return "the value is shorter than min_length"
    if longest is not None and length > longest:
        return "the value is longer than max_length"
    check = FORMATS.get(validation.get("format"))  # type: ignore[arg-type]
    if check is not None and check.fullmatch(value) is None:
        return f"the value is not a valid {validation['format']}"
    pattern = validation.get("pattern")
    if isinstance(pattern, str) and _pattern_rejects(pattern, value):
        return "the value does not match the declared pattern"
    return None


def _pattern_rejects(pattern: str, value: str) -> bool:
    outcome = evaluate(PATTERN_TEST, "transform",
                       Scope(inputs={"pattern": pattern, "value": value}), with_detail=True)
    return outcome.error is None and outcome.value is False
