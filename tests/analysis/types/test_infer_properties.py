"""The inference's contract, tested against the real sandbox: for random scope types, random
values they admit and random expressions over the roots, the type inferred for an expression
(as the engine hands the result on: `returned_type`) admits the value the sandbox returns — or
is unknown. An expression the sandbox refuses or that throws proves nothing and is skipped;
an expression inferred to throw (`NoValue`) must not return a value.

The scope is the engine's (`sandbox.Scope`: `inputs`, `ctx`, `run.outputs` frozen, the records
without a prototype); the result is what `sandbox.evaluate` gives for a transform, JSON as
expression-sandbox-spec.md's "Result contract" says (undefined properties dropped, nested NaN
null, a top-level NaN kept)."""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from analysis.document.expressions.parsing import ParsedExpression
from analysis.schema.value_types import AnyValue, ArrayType, ObjectType, StringType, ValueType
from analysis.types.infer import admits, expression_type, returned_type
from sandbox import SandboxError, Scope, evaluate
from sandbox.scope import ContextProjection
from tests.analysis.types.strategies import EXPRESSIONS, KEYS, TYPES, values_of

_CONTEXT_KEYS = [key for key in KEYS if key.isidentifier()]


def _closed(properties: dict[str, ValueType]) -> ObjectType:
    return ObjectType(tuple(properties.items()), frozenset(properties), None)


# The records' own keys are all present (the roots' types are closed objects): what the
# declared inputs and the narrowed run.outputs are.
RECORDS = st.dictionaries(st.sampled_from(KEYS), TYPES, max_size=3).map(_closed)
CONTEXTS = st.lists(st.sampled_from(_CONTEXT_KEYS), max_size=2, unique=True).map(
    lambda keys: _closed(dict.fromkeys(keys, StringType())))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), RECORDS, RECORDS, CONTEXTS, TYPES, st.booleans(), EXPRESSIONS)
def test_the_inferred_type_admits_what_the_sandbox_returns(
        data: st.DataObject, inputs_type: ObjectType, outputs_type: ObjectType,
        ctx_type: ObjectType, branch_type: ValueType, merge: bool, source: str) -> None:
    inputs = data.draw(values_of(inputs_type), label="inputs")
    outputs = data.draw(values_of(outputs_type), label="run.outputs")
    ctx = data.draw(values_of(ctx_type), label="ctx")
    assert isinstance(inputs, dict) and isinstance(outputs, dict) and isinstance(ctx, dict)
    roots: dict[str, ValueType] = {
        "inputs": inputs_type,
        "ctx": ctx_type,
        "run": _closed({"outputs": outputs_type}),
    }
    # a merge_fn also reads `branches` (an array of the fan-in branches' outputs)
    branches = data.draw(st.lists(values_of(branch_type), max_size=3), label="branches")
    if merge:
        roots["branches"] = ArrayType(branch_type)
    inferred = returned_type(expression_type(ParsedExpression(source), roots))
    event("unknown" if isinstance(inferred, AnyValue) else "typed")
    try:
        value = evaluate(source, "merge" if merge else "transform",
                         Scope(inputs=inputs, ctx=ContextProjection(values=ctx),
                               run_outputs=outputs, branches=branches if merge else ()))
    except SandboxError:
        event("threw")
        return
    assert admits(inferred, value), (source, inferred, value)
