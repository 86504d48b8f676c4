"""The one exception the sandbox raises: `sandbox_error` with a reason from the closed taxonomy."""

from __future__ import annotations

import uuid
from typing import Literal, get_args

Reason = Literal[
    "syntax",
    "runtime",
    "result_type",
    "non_serializable",
    "memory",
    "stack",
    "scope",
    "secret_context",
    "timeout",
]
REASONS: tuple[Reason, ...] = get_args(Reason)

ERROR_CODE = "sandbox_error"
SECRET_CONTEXT_MESSAGE = "secret-derived values are unavailable to expressions"

# User-facing messages: generic and fixed per reason, so they can never echo the expression
# source, a variable name, a scope value, an output or a host stack trace.
MESSAGES: dict[Reason, str] = {
    "syntax": "the expression is not valid JavaScript",
    "runtime": "the expression threw an error",
    "result_type": "a condition must evaluate to a boolean, a string or a number",
    "non_serializable": "the result is not a JSON-serializable value",
    "memory": "the expression exceeded the sandbox memory limit",
    "stack": "the expression exceeded the sandbox stack limit",
    "scope": "the evaluation scope is invalid",
    "secret_context": SECRET_CONTEXT_MESSAGE,
    "timeout": "the expression exceeded the sandbox time limit",
}


class SandboxError(Exception):
    """A failed evaluation.

    `message` is safe to show anywhere. `detail` is private: it may carry authored error text
    (and so scope values an expression put in a message); never render it to users or treat it
    as safe to log. A `secret_context` error never has a detail. `correlation_id` ties a shown
    message to the private detail in a log.
    """

    code = ERROR_CODE

    def __init__(self, reason: Reason, detail: str | None = None) -> None:
        self.reason: Reason = reason
        self.retryable = reason == "timeout"
        self.message = MESSAGES[reason]
        self.detail = None if reason == "secret_context" else detail
        self.correlation_id = uuid.uuid4().hex
        super().__init__(f"{ERROR_CODE} ({reason}): {self.message}")

    def to_json(self) -> dict[str, object]:
        """The public shape: `code`, `reason`, `retryable`, `message` (never the detail)."""
        return {
            "code": self.code,
            "reason": self.reason,
            "retryable": self.retryable,
            "message": self.message,
        }
