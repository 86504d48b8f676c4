"""The worker process: runs prepared VM requests, one JSON line in, one JSON line out.

Started by `WorkerPool`. Its address space is capped so that a native allocation QuickJS's heap
limit does not see fails here instead of exhausting the machine. Protocol (UTF-8, ASCII-only):

    worker → pool   {"ready": true}                        once, after imports
    pool → worker   {"kind": KIND}                         then, on the next line,
                    VM_REQUEST                             (ASCII JSON, as `prepare` made it)
    worker → pool   {"phase": "serialize"}                 when the private serializer starts
    worker → pool   {"ok": true, "value": ..., ["number": TAG]}
                  | {"ok": false, "reason": REASON, "detail": TEXT | null,
                     ["site": {"class", "message", "position": [LINE, COLUMN] | null}]}
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import Any, BinaryIO

from sandbox.errors import FailureSite, SandboxError
from sandbox.outcome import encode_value
from sandbox.vm import SUPPLY, run_request

# Python, the QuickJS module (with its 8 MB executor thread stack) and a 16 MB JS heap fit well
# inside this; runaway native allocations do not.
ADDRESS_SPACE_LIMIT_BYTES = 768 * 1024 * 1024
# CPU seconds one evaluation may use before the kernel stops the worker (SIGXCPU). The pool kills
# a worker long before that; this bounds a worker orphaned in an uninterruptible native loop.
CPU_SECONDS_PER_EVALUATION = 3
# Tells the pool that the evaluation reached the private serializer: a kill from then on keeps
# the serializer's baseline disposition (result_type / non_serializable), not timeout.
SERIALIZE_PHASE = {"phase": "serialize"}


def _set_limit(limit: str, soft: int) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on this platform (Windows)
        return
    kind = getattr(resource, limit)
    hard = resource.getrlimit(kind)[1]
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(kind, (soft, hard))


def _cap_cpu_for_one_evaluation() -> None:
    used = time.process_time()
    _set_limit("RLIMIT_CPU", math.ceil(used) + CPU_SECONDS_PER_EVALUATION)


def handle(header: bytes, request: bytes, channel: BinaryIO) -> dict[str, Any]:
    kind = json.loads(header)["kind"]
    _cap_cpu_for_one_evaluation()
    try:
        value = run_request(
            request.decode("ascii"), kind, lambda: _send(channel, SERIALIZE_PHASE)
        )
    except SandboxError as error:
        response: dict[str, Any] = {"ok": False, "reason": error.reason, "detail": error.detail}
        if error.site is not None:
            response["site"] = site_to_json(error.site)
        return response
    return {"ok": True, **encode_value(value)}


def site_to_json(site: FailureSite) -> dict[str, Any]:
    position = None if site.engine_position is None else list(site.engine_position)
    return {"class": site.cls, "message": site.message, "position": position}


def _send(channel: BinaryIO, response: dict[str, Any]) -> None:
    channel.write(json.dumps(response, ensure_ascii=True).encode("ascii") + b"\n")
    channel.flush()


def main() -> None:
    _set_limit("RLIMIT_AS", ADDRESS_SPACE_LIMIT_BYTES)
    # The protocol gets a private copy of stdout; fd 1 then points at stderr so that nothing
    # else printed in this process can corrupt a response.
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    SUPPLY.restock()  # the first request's context, before the pool is told the worker is ready
    _send(channel, {"ready": True})
    lines = iter(sys.stdin.buffer)
    for header in lines:
        request = next(lines, None)
        if request is None:
            return  # the pool closed our input mid-message
        _send(channel, handle(header, request, channel))


if __name__ == "__main__":
    main()
