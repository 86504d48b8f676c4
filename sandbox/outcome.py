"""The result of one evaluation as data: the `{"ok": ...}` JSON shape and its text form.

JSON has no NaN, ±Infinity or -0, yet a top-level number result keeps its exact value. Such a
value is encoded as `"value": null` plus `"number": "NaN" | "Infinity" | "-Infinity" | "-0"`;
the `number` key appears only then. Nested numbers already follow JSON.stringify (NaN → null,
-0 → 0) inside the VM.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from sandbox.errors import ErrorDetail, SandboxError
from sandbox.transport import NUMBER_TAGS


def number_tag(value: Any) -> str | None:
    """The tag of a top-level number JSON cannot carry, else None."""
    if not isinstance(value, float) or (math.isfinite(value) and value != 0.0):
        return None
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return "-0" if math.copysign(1.0, value) < 0 else None


def encode_value(value: Any) -> dict[str, Any]:
    """`{"value": ...}`, plus `"number"` for a top-level NaN, ±Infinity or -0."""
    tag = number_tag(value)
    return {"value": value} if tag is None else {"value": None, "number": tag}


def decode_value(encoded: dict[str, Any]) -> Any:
    """Inverse of `encode_value`; raises KeyError/ValueError on anything else."""
    tag = encoded.get("number")
    if tag is None:
        return encoded["value"]
    if tag not in NUMBER_TAGS or encoded["value"] is not None:
        raise ValueError("malformed number tag")
    return NUMBER_TAGS[tag]


@dataclass(frozen=True)
class Outcome:
    """A value (`error is None`) or the SandboxError an evaluation ended with.

    `detail` is set only when the caller asked for it (`with_detail=True`): the author's own
    JavaScript error (class, message, range in the expression). It is private in the spec's sense:
    only dry-run surfaces that show the author their own evaluation may render it, never `check`
    output, SARIF or a default log. Never set for `secret_context`.
    """

    value: Any = None
    error: SandboxError | None = None
    detail: ErrorDetail | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self, *, include_detail: bool = False) -> dict[str, Any]:
        """`{"ok": true, "value": ...}` or `{"ok": false, "error": {code, reason, ...}}`.

        The detail appears only with `include_detail` (as `error.detail`: class, message, range).
        """
        if self.error is not None:
            error = self.error.to_json()
            if include_detail and self.detail is not None and self.error.reason != "secret_context":
                error["detail"] = self.detail.to_json()
            return {"ok": False, "error": error}
        return {"ok": True, **encode_value(self.value)}

    def to_text(self) -> str:
        """One human-readable line block: the value as JSON, or the error's public message."""
        if self.error is not None:
            retry = ", retryable" if self.error.retryable else ""
            return f"{self.error.code} ({self.error.reason}{retry}): {self.error.message}"
        tag = number_tag(self.value)
        if tag is not None:
            return tag
        return json.dumps(self.value, ensure_ascii=False, indent=2)
