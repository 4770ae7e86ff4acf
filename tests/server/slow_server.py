"""A server process with one extra, slow RPC, for the graceful-shutdown test.

It is the real entry point (settings, logging, signals, drain) plus a test-only service,
``baloot.test.SlowService/Sleep``, added through the ``extra_handlers`` hook: the request is a
number of seconds as text, the handler logs "slow call started", sleeps, and answers b"done".
Production code has no slow path; this file is the only place one exists.
"""

from __future__ import annotations

import asyncio
import sys

import grpc
import grpc.aio
import structlog


async def sleep(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    seconds = float(request.decode())
    structlog.get_logger("slow_server").info("slow call started", seconds=seconds)
    await asyncio.sleep(seconds)
    return b"done"


SLOW_SERVICE = grpc.method_handlers_generic_handler(
    "baloot.test.SlowService", {"Sleep": grpc.unary_unary_rpc_method_handler(sleep)}
)

if __name__ == "__main__":
    from baloot_engine.server.app import main

    sys.exit(main(sys.argv[1:], extra_handlers=[SLOW_SERVICE]))
