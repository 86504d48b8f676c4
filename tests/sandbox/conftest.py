"""Shared helpers for the sandbox tests (real QuickJS, no mocks)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sandbox import SandboxError, Scope, evaluate
from sandbox.transport import Kind


@pytest.fixture
def failure() -> Callable[..., SandboxError]:
    """Evaluate and return the SandboxError the evaluation must end with."""

    def fail(source: str, kind: Kind = "transform", scope: Scope | None = None) -> SandboxError:
        with pytest.raises(SandboxError) as caught:
            evaluate(source, kind, scope or Scope())
        return caught.value

    return fail
