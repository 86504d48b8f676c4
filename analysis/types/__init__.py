"""What each value a workflow's expressions and templates read may be, before a run.

Built on the type language of `analysis.schema.value_types` (the engine's `output_schema` strict
subset, ADR-0092), so one description serves validation and types. `AnyValue` is "unknown" here:
nothing is reported about a value whose type is not known.
"""
