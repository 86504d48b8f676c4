"""The fixed v1.0 resource caps (expression-sandbox-spec.md, Resource caps): one source of truth."""

TIME_LIMIT_MS = 1000
MEMORY_LIMIT_BYTES = 16 * 1024 * 1024
STACK_LIMIT_BYTES = 256 * 1024
