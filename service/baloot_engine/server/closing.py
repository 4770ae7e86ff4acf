"""The last step of a drain before grpc stops accepting: calls that still come are parked.

grpc's shutdown sends GOAWAY and lets the calls its handlers run end, but it cancels every
call it has received and not yet handed to a handler, and every call that reaches it before
the client has read the GOAWAY: the client sees CANCELLED, which no retry rule retries. Those
are the calls on the wire at that moment. So once the lame duck is over, :class:`Closing`
answers every new call (health's apart) by parking it: its handler waits, without reading its
body, until grpc has sent its GOAWAY (:meth:`Closing.release`), then refuses it UNAVAILABLE
with reason ``DRAINING`` and a short retry delay. A client that keeps a bounded number of
calls in flight soon has all of them parked and sends nothing more, so the server stops
accepting once nothing has arrived for a moment (:meth:`Closing.wait_quiet`); the parked
calls then end with a reason the client retries on, after the GOAWAY that sends its retry to
another server (or, with workers, another worker).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

import grpc
import grpc.aio

from baloot_engine.api.calls import refuse
from baloot_engine.api.refusals import ApiError, Code
from baloot_engine.lanes.errors import DRAINING
from baloot_engine.telemetry.logs import get_logger

PARK_LIMIT_SECONDS: Final = 5.0
"""A parked call is refused after this long even if the server has not stopped accepting."""
RETRY_AFTER_SECONDS: Final = 0.05
"""The retry delay a parked call's refusal announces (its retry goes to another server)."""

_log = get_logger("baloot_engine.server")


class Closing(grpc.GenericRpcHandler):
    """A generic handler put before every other: nothing until :meth:`close`, then it takes
    every call of :attr:`handlers` (the services' own, set by ``create_server``; those of the
    services named in ``skip``, health's, apart) and parks it."""

    def __init__(self, skip: Sequence[str]) -> None:
        self.handlers: Sequence[grpc.GenericRpcHandler] = ()
        self._skip = tuple(f"/{name}/" for name in skip)
        self.closed = False
        self.parked = 0  # calls parked in all
        self.last_arrival = -math.inf
        self._released: asyncio.Event | None = None

    def close(self) -> None:
        """From now on, park every call that arrives."""
        self._released = asyncio.Event()
        self.closed = True

    def release(self) -> None:
        """grpc has sent its GOAWAY: every parked call is refused now (and any that still
        comes, at once)."""
        if self._released is not None:
            self._released.set()
        if self.parked:
            _log.info("calls that came while stopping refused DRAINING", calls=self.parked)

    async def wait_quiet(self, since: float, quiet: float, within: float) -> bool:
        """Wait until no call has arrived for ``quiet`` seconds counted from ``since`` (a
        ``time.monotonic()`` instant: the last call the gate saw) or from the last parked
        call; False if ``within`` ran out first."""
        deadline = time.monotonic() + within
        while True:
            now = time.monotonic()
            last = max(since, self.last_arrival)
            if now - last >= quiet:
                return True
            if now >= deadline:
                return False
            await asyncio.sleep(min(0.02, deadline - now, last + quiet - now))

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Any:
        """Nothing while open; once closed, a parking handler of the call's shape."""
        if not self.closed or handler_call_details.method.startswith(self._skip):
            return None
        for generic in self.handlers:
            handler = generic.service(handler_call_details)
            if handler is not None:
                break
        else:
            return None
        self.last_arrival = time.monotonic()
        return _shaped(handler, self._parked)

    async def _parked(self, _request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        self.parked += 1
        released = self._released
        if released is not None and not released.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(released.wait(), PARK_LIMIT_SECONDS)
        await refuse(
            context,
            ApiError(
                Code.UNAVAILABLE,
                DRAINING,
                "the server is stopping; send the same request again (it reaches another server)",
                retry_after=RETRY_AFTER_SECONDS,
            ),
        )


def _shaped(handler: Any, behaviour: Callable[..., Any]) -> Any:
    """A handler of ``handler``'s shape (unary or streaming) that runs ``behaviour`` and reads
    no request body."""
    if handler.request_streaming and handler.response_streaming:
        make = grpc.stream_stream_rpc_method_handler
    elif handler.request_streaming:
        make = grpc.stream_unary_rpc_method_handler
    elif handler.response_streaming:
        make = grpc.unary_stream_rpc_method_handler
    else:
        make = grpc.unary_unary_rpc_method_handler
    return make(behaviour, None, handler.response_serializer)


__all__ = ["PARK_LIMIT_SECONDS", "RETRY_AFTER_SECONDS", "Closing"]
