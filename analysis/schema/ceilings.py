"""The engine's absolute admission ceilings on authored values (ADR-0086 §2; the newest
`packages/core/src/limits.ts` `ADMISSION_CEILINGS`). A value past one is refused when the file
is loaded, never clamped. The per-field ones are schema bounds (`common`, `agent`, `workflow`);
the counted ones (nodes, edges, fan-out width) are the `admission-limit` rule's."""

from __future__ import annotations

NODES = 500
EDGES = 2000
FAN_OUT = 50
FALLBACK_CHAIN_ENTRIES = 5
RETRY_MAX = 10
CHAIN_ENTRY_MAX_ATTEMPTS = 10
MAX_PARALLEL = 64
