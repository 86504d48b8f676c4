"""The one exception the sandbox raises: `sandbox_error` with a reason from the closed taxonomy."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Literal, get_args

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


# The author detail's text is the author's own, but it is still clipped.
DETAIL_TEXT_LIMIT = 2000


@dataclass(frozen=True)
class SourcePosition:
    """0-based line and 0-based UTF-16 column within the authored expression."""

    line: int
    character: int

    def to_json(self) -> dict[str, int]:
        return {"line": self.line, "character": self.character}


@dataclass(frozen=True)
class SourceRange:
    start: SourcePosition
    end: SourcePosition

    def to_json(self) -> dict[str, Any]:
        return {"start": self.start.to_json(), "end": self.end.to_json()}


@dataclass(frozen=True)
class ErrorDetail:
    """The author's own error, for dry-run surfaces that opt in (never in public messages).

    `cls` is the JavaScript error class (`TypeError`; `SyntaxError` for a parse error; `Uncaught`
    for a thrown value that is not an Error), `message` its message, `range` the failing token in
    expression coordinates, or None where the engine gave no position.
    """

    cls: str
    message: str
    range: SourceRange | None

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"class": self.cls, "message": self.message}
        if self.range is not None:
            shown["range"] = self.range.to_json()
        return shown


@dataclass(frozen=True)
class FailureSite:
    """Where and what failed, as the VM or the parser reported it (before coordinates are known).

    `engine_position` is the engine's (1-based line, 1-based UTF-8 column) in the compiled
    wrapper; `source_offset` a code-point offset into the authored source. Private, like detail.
    """

    cls: str
    message: str
    engine_position: tuple[int, int] | None = None
    source_offset: int | None = None


class SandboxError(Exception):
    """A failed evaluation.

    `message` is safe to show anywhere. `detail` is private: it may carry authored error text
    (and so scope values an expression put in a message); never render it to users or treat it
    as safe to log. A `secret_context` error never has a detail. `correlation_id` ties a shown
    message to the private detail in a log.
    """

    code = ERROR_CODE

    def __init__(
        self, reason: Reason, detail: str | None = None, site: FailureSite | None = None
    ) -> None:
        self.reason: Reason = reason
        self.retryable = reason == "timeout"
        self.message = MESSAGES[reason]
        self.detail = None if reason == "secret_context" else detail
        # What the author's own error was (see FailureSite); never for a secret_context failure.
        self.site = None if reason == "secret_context" else site
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
