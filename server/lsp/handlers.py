"""`guarded`: the decorator every feature handler wears, so no request ever raises to the client.

A failing handler logs the exception (stderr and `window/logMessage`) and answers the feature's
empty result instead of a JSON-RPC error; cancellation still propagates so pygls answers
`RequestCancelled`.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

logger = logging.getLogger("relavium-lsp")

F = TypeVar("F", bound=Callable[..., Any])


def guarded(empty: Any = None) -> Callable[[F], F]:
    """Answer `empty` (called if callable, so each answer gets a fresh list) on any exception."""

    def fallback() -> Any:
        return empty() if callable(empty) else empty

    def decorate(handler: F) -> F:
        name = handler.__qualname__
        if inspect.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def guarded_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await handler(*args, **kwargs)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    _report(args, name)
                    return fallback()

            return guarded_async  # type: ignore[return-value]

        @functools.wraps(handler)
        def guarded_sync(*args: Any, **kwargs: Any) -> Any:
            try:
                return handler(*args, **kwargs)
            except Exception:
                _report(args, name)
                return fallback()

        return guarded_sync  # type: ignore[return-value]

    return decorate


def _report(args: tuple[Any, ...], name: str) -> None:
    logger.exception("%s failed", name)
    # The server is the first argument of every handler registered with `ls.feature`.
    server = args[0] if args else None
    log = getattr(server, "log_error", None)
    if callable(log):
        log(f"{name} failed; see the server's stderr for the traceback")
